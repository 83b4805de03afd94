#!/usr/bin/env python3
"""bench/compile_cold.py: cold `bwpolicy compile` (a new process each
time), several builds or settings interleaved round by round, so that the
host's drift hits every row alike. Prints per row the median wall time
(p10, p90) and the median CPU time (user + system of the process).

    python3 bench/compile_cold.py ROUNDS LABEL=BWPOLICY[:CONFIG] ...

The environment is HOME (default: $HOME) and PATH=/usr/bin:/bin only;
the working directory is CWD (default: the current one); run as the user
USER (default: this one; needs root to switch). Example, as root:

    HOME=/home/bwtest/benchh/h CWD=/home/bwtest/benchh/h/proj USER=bwtest \\
      python3 bench/compile_cold.py 150 old=/tmp/old/bwpolicy new=/tmp/new/bwpolicy \\
      deny=/tmp/new/bwpolicy:/tmp/deny.yaml
"""
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    rounds = int(sys.argv[1])
    rows = []
    for spec in sys.argv[2:]:
        label, _, rest = spec.partition("=")
        binary, _, config = rest.partition(":")
        rows.append((label, binary, config))
    home = os.environ.get("HOME", "/")
    cwd = os.environ.get("CWD", os.getcwd())
    user = os.environ.get("USER")
    if os.getuid() != 0 or user in (None, "", "root"):
        user = None  # only root switches users
    env = {"HOME": home, "PATH": "/usr/bin:/bin"}
    out = tempfile.mkdtemp(prefix="compile_cold.")
    os.chmod(out, 0o777)
    wall = {r[0]: [] for r in rows}
    cpu = {r[0]: [] for r in rows}
    for _ in range(rounds):
        for label, binary, config in rows:
            argv = [binary, "compile", "-o", os.path.join(out, label + ".json")]
            if config:
                argv[2:2] = ["--config", config]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(argv, env=env, cwd=cwd, user=user, extra_groups=[] if user else None,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            wall[label].append((time.perf_counter() - start) * 1000)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[label].append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000)
    for label, _, _ in rows:
        w = sorted(wall[label])
        print("%-8s wall median %6.1f ms (p10 %6.1f, p90 %6.1f)  CPU median %6.1f ms  (n=%d)" % (
            label, statistics.median(w), w[len(w) // 10], w[len(w) * 9 // 10], statistics.median(cpu[label]), len(w)))


if __name__ == "__main__":
    main()
