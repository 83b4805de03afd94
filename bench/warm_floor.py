#!/usr/bin/env python3
"""bench/warm_floor.py: what a runtime that lives as long as the
environment could reach per command, before one is built (issues 25
item 9 and 26 item 4).

    bench/warm_floor.py BIN INVOCATION [--rounds N]

Run it as an ordinary user in the directory INVOCATION was compiled for
(its first bwrun done: ledger recorded, watcher started). Interleaved,
round by round, it times `/bin/true`:

  bwrun    BIN/bwrun INVOCATION -- /bin/true, as today (a process per
           command: Go start-up, the invocation read and checked, the
           ledger, the journal, the watcher's round trip, the scan);
  floor    bwrap with the invocation's own arguments (seccomp from a
           memfd, --info-fd, --block-fd, --json-status-fd), spawned from
           this already running process, the rlimits set with prlimit on
           the sandbox's first process and the command released through
           --block-fd, as bwrun does; nothing else (no checks, no scan):
           a warm runtime's spawn, without its per-command checks;
  hermes   Hermes' chain for the same mounts (integrations/hermes/bench.py's
           argv: prlimit, bwrap, prlimit --nproc), spawned in a new
           session as Hermes spawns it.

A warm runtime's cost per command is the floor plus what it still does
per command (the pre-command checks, the journal entry, the scan of
what changed, the post-command lstats: measured apart, in process) plus
one round trip on its socket. CPU is the children's rusage (the
spawner's own, Python's, is printed apart: it is the same kind of
spawn for floor and hermes). Prints medians, the per-round ratios'
medians and the load average.
"""
import argparse
import base64
import fcntl
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "integrations"))
from hermes.bench import hermes_argv  # noqa: E402  (one copy of Hermes' argv)


def floor_run(inv, argv, cwd):
    """bwrap with the invocation's arguments, set up as bwrun sets it up."""
    fds = {f["kind"]: f["fd"] for f in inv["fds"]}
    info_r, info_w = os.pipe()
    block_r, block_w = os.pipe()
    status_r, status_w = os.pipe()
    child = {fds["info"]: info_w, fds["block"]: block_r, fds["status"]: status_w}
    if "seccomp" in fds:
        sfd = os.memfd_create("bwpolicy-seccomp")
        os.write(sfd, base64.b64decode(inv["seccomp"]["program"]))
        os.lseek(sfd, 0, os.SEEK_SET)
        child[fds["seccomp"]] = sfd

    def place():
        # Each source is first copied above every target (close-on-exec),
        # then onto its number: no target overwrites a source still needed.
        moved = {num: fcntl.fcntl(src, fcntl.F_DUPFD_CLOEXEC, 100) for num, src in child.items()}
        for num, src in moved.items():
            os.dup2(src, num)  # inheritable

    p = subprocess.Popen([inv["bwrap"]["path"]] + inv["bwrap"]["args"] + ["--"] + argv, cwd=cwd, preexec_fn=place,
                         close_fds=False, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for fd in child.values():
        os.close(fd)
    info = b""
    while True:
        chunk = os.read(info_r, 4096)
        if not chunk:
            break
        info += chunk
        try:
            pid = json.loads(info)["child-pid"]
            break
        except ValueError:
            continue
    rl = inv["rlimits"]
    for res, key in ((resource.RLIMIT_NPROC, "nproc"), (resource.RLIMIT_AS, "as_bytes"),
                     (resource.RLIMIT_CPU, "cpu_seconds"), (resource.RLIMIT_NOFILE, "nofile")):
        if rl.get(key):
            resource.prlimit(pid, res, (rl[key], rl[key]))
    os.write(block_w, b"x")
    os.close(block_w)
    p.communicate()
    os.close(info_r)
    os.read(status_r, 1 << 16)
    os.close(status_r)
    if p.returncode != 0:
        sys.exit("floor: bwrap exit %d" % p.returncode)


def timed(fn):
    c0, s0 = resource.getrusage(resource.RUSAGE_CHILDREN), resource.getrusage(resource.RUSAGE_SELF)
    t = time.perf_counter()
    fn()
    wall = time.perf_counter() - t
    c1, s1 = resource.getrusage(resource.RUSAGE_CHILDREN), resource.getrusage(resource.RUSAGE_SELF)
    cpu = lambda a, b: (b.ru_utime - a.ru_utime + b.ru_stime - a.ru_stime) * 1000  # noqa: E731
    return wall * 1000, cpu(c0, c1), cpu(s0, s1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("invocation")
    ap.add_argument("--rounds", type=int, default=41)
    a = ap.parse_args()
    cwd = os.getcwd()
    with open(a.invocation) as f:
        inv = json.load(f)
    # The empty file Hermes' chain masks files with: in the system's
    # temporary directory, not beside the invocation (a new entry there
    # can make it stale).
    fd, empty = tempfile.mkstemp(prefix="warm_floor-empty-")
    os.close(fd)
    os.chmod(empty, 0o400)
    try:
        run(a, inv, cwd, hermes_argv(inv, empty, "")[:-3] + ["/bin/true"])
    finally:
        os.remove(empty)


def run(a, inv, cwd, hermes):
    """The interleaved rounds and the table."""

    def bwrun():
        r = subprocess.run([os.path.join(a.bin, "bwrun"), a.invocation, "--", "/bin/true"], capture_output=True)
        if r.returncode != 0 or r.stderr:
            sys.exit("bwrun: exit %d: %s" % (r.returncode, r.stderr.decode()[:500]))

    def chain():
        r = subprocess.run(hermes, capture_output=True, preexec_fn=os.setsid)
        if r.returncode != 0:
            sys.exit("Hermes' chain: exit %d: %s" % (r.returncode, r.stderr.decode()[:500]))

    kinds = (("bwrun", bwrun), ("floor", lambda: floor_run(inv, ["/bin/true"], cwd)), ("hermes", chain))
    res = {k: {"wall": [], "cpu": [], "self": []} for k, _ in kinds}
    load0 = os.getloadavg()[0]
    for _ in range(a.rounds):
        for k, fn in kinds:
            w, c, s = timed(fn)
            res[k]["wall"].append(w)
            res[k]["cpu"].append(c)
            res[k]["self"].append(s)
    med = lambda xs: statistics.median(xs)  # noqa: E731
    print("| /bin/true | wall (median) | CPU of the children (median) | spawner's own CPU | wall ÷ Hermes (per-round median) |")
    print("|---|---|---|---|---|")
    for k, _ in kinds:
        ratio = med([x / y for x, y in zip(res[k]["wall"], res["hermes"]["wall"])])
        print("| %s | %.1f ms | %.2f ms | %.2f ms | %.2f× |" % (k, med(res[k]["wall"]), med(res[k]["cpu"]), med(res[k]["self"]), ratio))
    print()
    print("%d interleaved rounds in %s; load average %.2f before, %.2f after." % (a.rounds, cwd, load0, os.getloadavg()[0]))


if __name__ == "__main__":
    main()
