#!/usr/bin/env python3
"""bench/scan_cost.py: what H9's post-command scan and ledger cost (issue 26).

    bench/scan_cost.py BIN OUT [--rounds N] [--sizes 22600,270000] [--compile-size 1000000]

BIN holds bwpolicy and bwrun; OUT is a work directory (trees are generated
there: no network). Run it as an ordinary user (bench/run.sh runs it as
the user bwtest when it runs as root). For each size it generates a
tree like a node_modules directory (directories of nine files, ten
repositories with a hook and a code key among them), compiles an
invocation for it and one for an empty working directory, runs each once
(the first run records the ledger), then times `bwrun INV -- /bin/true`
in interleaved rounds (each round's runs in a shuffled order): the CPU time of the whole chain (bwrun, bwrap and
the command: the children's rusage) and the wall time, medians; beside
each, Hermes' own chain for the same mounts (prlimit, bwrap with the
invocation's arguments, prlimit --nproc, /bin/true: the argv of
integrations/hermes/bench.py, spawned as Hermes spawns it), in the same
rounds. Each tree is timed twice: with the environment's change watcher
(bwrun starts it, detached, on the first run: its own CPU is not in
bwrun's rusage, so it is read from /proc and reported per command
beside), and without one (BWPOLICY_NO_WATCH=1, another invocation of the
same tree: every scan walks the whole tree, with the directory index;
Hermes' chain is not run again for it). Then it
times `bwpolicy compile` of a tree of --compile-size entries (median of
three) and bwrun's first run there (the ledger's recording). Prints a
Markdown table.
"""
import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "integrations"))
from hermes.bench import hermes_argv  # noqa: E402  (one copy of Hermes' argv)
from hermes.warm import _connect, send_request, socket_of  # noqa: E402  (the plugin's client of bwrun --serve)


def gen_tree(root, entries, repos=10):
    """A tree of about `entries` entries: directories of nine empty files
    (as package directories are), two levels deep, and `repos` git
    repositories with a pre-commit hook and a core.pager."""
    if os.path.exists(os.path.join(root, ".done")):
        return
    os.makedirs(root, exist_ok=True)
    n = 0
    i = 0
    while n < entries:
        group = os.path.join(root, "node_modules", "g%04d" % (i // 100))
        if i % 100 == 0:
            os.makedirs(group, exist_ok=True)
            n += 1
        d = os.path.join(group, "p%05d" % i)
        os.mkdir(d)
        for j in range(9):
            open(os.path.join(d, "f%d.js" % j), "w").close()
        n += 10
        i += 1
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", HOME=root)
    for r in range(repos):
        d = os.path.join(root, "vendor", "r%02d" % r)
        subprocess.run(["git", "init", "-q", d], check=True, env=env)
        subprocess.run(["git", "-C", d, "config", "core.pager", "less -R"], check=True, env=env)
        hook = os.path.join(d, ".git", "hooks", "pre-commit")
        with open(hook, "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(hook, 0o755)
    open(os.path.join(root, ".done"), "w").close()


def compile_inv(bin_dir, cwd, inv):
    subprocess.run([os.path.join(bin_dir, "bwpolicy"), "compile", "--cwd", cwd, "-o", inv], cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def watcher_cpu(inv):
    """CPU seconds each watcher of invocation inv (bwrun --watch INV) used
    so far, by pid, read from /proc (schedstat: the scheduler's count, in
    ns). A watcher that exits meanwhile (the previous run's, once its
    invocation is recompiled) is not counted."""
    total = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
            if len(argv) < 3 or argv[1] != b"--watch" or argv[2] != inv.encode():
                continue
            with open("/proc/%s/schedstat" % pid) as f:
                total[pid] = int(f.read().split()[0]) / 1e9
        except OSError:
            continue
    return total


def run_once(bin_dir, inv, cwd, strict=True, watch=True):
    """One bwrun INV -- /bin/true: (cpu seconds of the chain, wall seconds);
    strict: a failure or a warning ends the benchmark, else it is printed;
    watch: with the environment's change watcher."""
    env = dict(os.environ)
    if not watch:
        env["BWPOLICY_NO_WATCH"] = "1"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run([os.path.join(bin_dir, "bwrun"), inv, "--", "/bin/true"], cwd=cwd, capture_output=True, env=env)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0 or r.stderr:
        msg = "bwrun %s: exit %d: %s" % (inv, r.returncode, r.stderr.decode()[:500])
        if strict:
            sys.exit(msg)
        print(msg)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


class Served:
    """bwrun --serve for one invocation, asked as the Hermes plugin asks
    it (hermes.warm): one connection a command, the request and the
    command's stdin, stdout and stderr over SCM_RIGHTS, the status line
    back. Its CPU a command is the server's own and its waited children's
    (bwrap, the command), from /proc/PID/stat."""

    def __init__(self, bin_dir, inv):
        self.inv = inv
        ready_r, ready_w = os.pipe()
        parent_r, self.parent_w = os.pipe()
        self.proc = subprocess.Popen([os.path.join(bin_dir, "bwrun"), "--serve", inv, "--ready-fd", str(ready_w),
                                      "--parent-fd", str(parent_r)], pass_fds=(ready_w, parent_r),
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True)
        os.close(ready_w)
        os.close(parent_r)
        with os.fdopen(ready_r, "rb") as f:
            line = f.readline().strip()
        if line != b"ready":
            sys.exit("bwrun --serve %s: %r" % (inv, line))

    def cpu(self):
        """CPU seconds so far: the server's own threads (schedstat, in ns)
        and its waited children (bwrap, the command: cutime and cstime,
        in clock ticks, so only a mean over many commands is exact)."""
        own = 0
        for task in os.listdir("/proc/%d/task" % self.proc.pid):
            with open("/proc/%d/task/%s/schedstat" % (self.proc.pid, task)) as f:
                own += int(f.read().split()[0])
        with open("/proc/%d/stat" % self.proc.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return own / 1e9 + (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")

    def run(self):
        """One /bin/true: wall seconds."""
        t = time.perf_counter()
        sock = _connect(socket_of(self.inv))
        null = os.open(os.devnull, os.O_RDWR)
        send_request(sock, ["--nonce", "bench", self.inv, "--", "/bin/true"], os.environ, (null, null, null))
        os.close(null)
        reply = b""
        while True:
            b = sock.recv(4096)
            if not b:
                break
            reply += b
        sock.close()
        wall = time.perf_counter() - t
        status = json.loads(reply.decode() or "{}")
        if status.get("nonce") != "bench" or status.get("exit_status") != 0:
            sys.exit("bwrun --serve %s: %r" % (self.inv, reply[:500]))
        return wall

    def close(self):
        os.close(self.parent_w)
        self.proc.wait(10)


def run_hermes(argv, cwd):
    """Hermes' chain once, spawned as Hermes' LocalEnvironment spawns
    (a new session): (cpu seconds of the chain, wall seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run(argv, cwd=cwd, capture_output=True, preexec_fn=os.setsid)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit("Hermes' chain: exit %d: %s" % (r.returncode, r.stderr.decode()[:500]))
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("out")
    ap.add_argument("--rounds", type=int, default=41)
    ap.add_argument("--sizes", default="22600,270000")
    ap.add_argument("--compile-size", type=int, default=1000000)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    state = os.path.join(a.out, "state")
    os.makedirs(state, mode=0o700, exist_ok=True)
    empty = os.path.join(a.out, "empty")
    os.makedirs(empty, exist_ok=True)
    rows = []
    # label: (invocation, working directory, with the watcher)
    invs = {"empty": (os.path.join(state, "empty.json"), empty, True)}
    for size in [int(s) for s in a.sizes.split(",") if s]:
        d = os.path.join(a.out, "tree-%d" % size)
        gen_tree(d, size)
        invs["tree %d" % size] = (os.path.join(state, "tree-%d.json" % size), d, True)
        invs["tree %d, no watcher" % size] = (os.path.join(state, "tree-%d-nowatch.json" % size), d, False)
    # Made before the compiles: OUT is the home directory in bench/run.sh,
    # whose new entries make an invocation stale (H10).
    empty_file = os.path.join(a.out, "empty-file")
    if not os.path.exists(empty_file):
        open(empty_file, "w").close()
        os.chmod(empty_file, 0o400)
    first = {}
    for label, (inv, cwd, watch) in invs.items():
        for f in (inv + ".ledger", inv + ".stale", inv + ".watch", inv + ".index"):
            if os.path.exists(f):
                os.remove(f)
        compile_inv(a.bin, cwd, inv)
        t = time.perf_counter()
        run_once(a.bin, inv, cwd, watch=watch)  # records the ledger, starts the watcher
        first[label] = time.perf_counter() - t
    hermes = {}
    for label, (inv, cwd, _) in invs.items():
        with open(inv) as f:
            hermes[label] = hermes_argv(json.load(f), empty_file, "")[:-3] + ["/bin/true"]
    cpu = {k: [] for k in invs}
    wall = {k: [] for k in invs}
    hcpu = {k: [] for k in invs}
    hwall = {k: [] for k in invs}
    swall = {k: [] for k in invs}
    # Through the environment's runtime (bwrun --serve, what the Hermes
    # plugin asks): one server per watched invocation, started now.
    served = {label: Served(a.bin, inv) for label, (inv, _, watch) in invs.items() if watch}
    load0 = os.getloadavg()[0]
    wcpu = {k: watcher_cpu(invs[k][0]) for k in invs}
    scpu0 = {k: srv.cpu() for k, srv in served.items()}
    # Each round runs its kinds in a shuffled order (seeded): on a busy
    # machine a run right after a bwrun run is faster than one right
    # after another kind, so a fixed order (bwrun, then Hermes' chain)
    # favours whichever kind always comes second.
    order = random.Random(20261202)
    kinds = [(label, "bwrun") for label in invs] + [(label, k) for label in served for k in ("hermes", "served")]
    for _ in range(a.rounds):
        order.shuffle(kinds)
        for label, kind in kinds:
            inv, cwd, watch = invs[label]
            if kind == "hermes":
                c, w = run_hermes(hermes[label], cwd)
                hcpu[label].append(c * 1000)
                hwall[label].append(w * 1000)
            elif kind == "served":
                swall[label].append(served[label].run() * 1000)
            else:
                c, w = run_once(a.bin, inv, cwd, watch=watch)
                cpu[label].append(c * 1000)
                wall[label].append(w * 1000)
    load1 = os.getloadavg()[0]
    wcpu = {k: sum(c - wcpu[k].get(pid, 0) for pid, c in watcher_cpu(invs[k][0]).items()) * 1000 / a.rounds for k in invs}
    base = statistics.median(cpu["empty"])
    scpu = {k: (srv.cpu() - scpu0[k]) * 1000 / a.rounds for k, srv in served.items()}
    for srv in served.values():
        srv.close()
    print("| bwrun INV -- /bin/true in | CPU of the chain (median) | × empty | the watcher's CPU a command (mean) | wall (median) "
          "| first run (records the ledger, starts the watcher) | Hermes' chain: CPU | wall | bwrun ÷ Hermes (CPU) | (wall) "
          "| through bwrun --serve: CPU (mean) | wall | ÷ Hermes (CPU, means) | (wall) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for label, (_, _, watch) in invs.items():
        m, w = statistics.median(cpu[label]), statistics.median(wall[label])
        row = "| %s | %.1f ms | %.2f× | %s | %.1f ms | %.0f ms |" % (
            label, m, m / base, "%.2f ms" % wcpu[label] if watch else "—", w, first[label] * 1000)
        if watch:
            hm, hw = statistics.median(hcpu[label]), statistics.median(hwall[label])
            row += " %.1f ms | %.1f ms | %.2f× | %.2f× |" % (hm, hw, m / hm, w / hw)
            sm, sw = scpu[label], statistics.median(swall[label])
            row += " %.1f ms | %.1f ms | %.2f× | %.2f× |" % (sm, sw, sm / statistics.mean(hcpu[label]), sw / hw)
        else:
            row += " — | — | — | — | — | — | — | — |"
        print(row)
    print()
    print("%d interleaved rounds; CPU is the children's rusage (bwrun, bwrap, the command); the watcher's, a detached process, "
          "is read from /proc/PID/schedstat (a mean over the rounds); load average %.2f before, %.2f after."
          % (a.rounds, load0, load1))
    if a.compile_size:
        d = os.path.join(a.out, "tree-%d" % a.compile_size)
        gen_tree(d, a.compile_size)
        inv = os.path.join(state, "big.json")
        times = []
        for _ in range(3):
            t = time.perf_counter()
            compile_inv(a.bin, d, inv)
            times.append(time.perf_counter() - t)
        for f in (inv + ".ledger",):
            if os.path.exists(f):
                os.remove(f)
        t = time.perf_counter()
        run_once(a.bin, inv, d, strict=False)
        rec = time.perf_counter() - t
        compile_inv(a.bin, d, inv)  # a stale first run asks for it
        c, w = run_once(a.bin, inv, d, strict=False)
        print()
        print("| %d-entry tree | |" % a.compile_size)
        print("|---|---|")
        print("| bwpolicy compile (median of 3) | %.2f s |" % statistics.median(times))
        print("| first bwrun (records the ledger) | %.2f s |" % rec)
        print("| next bwrun -- /bin/true | %.0f ms CPU, %.0f ms wall |" % (c * 1000, w * 1000))


if __name__ == "__main__":
    main()
