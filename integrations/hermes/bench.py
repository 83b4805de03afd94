#!/usr/bin/python3
"""Per-command cost through the plugin next to Hermes' bubblewrap
backend's argv, side by side (interleaved) in one run.

  (p) the plugin's path: Python subprocess → bwrun --status-file F
      --timeout T --chdir CWD INVOCATION -- /bin/bash -c true, the status
      file read afterwards (what StandaloneEnvironment.execute does);
  (h) Hermes' backend's argv: prlimit --as --cpu bwrap <the same mounts>
      -- prlimit --nproc /bin/bash -c true (the compiled bwrap arguments
      without the seccomp, info, block and status descriptors, each
      --ro-bind-data of an empty descriptor replaced by a read-only bind
      of an empty file, as that backend masks files).

Run it as an unprivileged user (max_procs applies), with bwpolicy and
bwrun on PATH or in BWPOLICY_BIN_DIR:

  python3 integrations/hermes/bench.py [ROUNDS]

It prints the medians, their ratio and the load average."""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from hermes.sandbox import Sandbox, sandbox_id_for  # noqa: E402


def hermes_argv(inv, empty):
    args, out, i = inv["bwrap"]["args"], [], 0
    while i < len(args):
        a = args[i]
        if a in ("--seccomp", "--info-fd", "--block-fd", "--json-status-fd"):
            i += 2
            continue
        if a == "--ro-bind-data":
            out += ["--ro-bind", empty, args[i + 2]]
            i += 3
            continue
        out.append(a)
        i += 1
    rl = inv["rlimits"]
    pre = ["prlimit"]
    if rl.get("as_bytes"):
        pre.append("--as=%d" % rl["as_bytes"])
    if rl.get("cpu_seconds"):
        pre.append("--cpu=%d" % rl["cpu_seconds"])
    inner = ["prlimit", "--nproc=%d" % rl["nproc"]] if rl.get("nproc") else []
    return pre + [inv["bwrap"]["path"]] + out + ["--"] + inner + ["/bin/bash", "-c", "true"]


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    base = tempfile.mkdtemp(prefix="bwpolicy-bench-", dir="/var/tmp")
    home = os.path.join(base, "home")
    for d in (".ssh", ".aws", ".gnupg", ".hermes", "proj"):
        os.makedirs(os.path.join(home, d))
    for f in (".npmrc", ".netrc"):
        open(os.path.join(home, f), "w").close()
    os.environ.update(HOME=home, HERMES_HOME=os.path.join(home, ".hermes"))
    empty = os.path.join(base, "empty")
    open(empty, "w").close()
    os.chmod(empty, 0o400)
    sb = Sandbox(sandbox_id=sandbox_id_for("bench"), cwd=os.path.join(home, "proj"), timeout=60)
    try:
        inv = sb.compile()
        h = hermes_argv(inv, empty)
        assert subprocess.run(h).returncode == 0, h

        def plugin():
            f = sb.new_status_file()
            subprocess.run(sb.argv(["/bin/bash", "-c", "true"], chdir=inv["chdir"], timeout=60, status_file=f), check=True)
            assert sb.read_status(f)["outcome"] == "exited"

        def hermes():
            subprocess.run(h, check=True)

        times = {"plugin": [], "hermes": []}
        for fn in (plugin, hermes):
            for _ in range(10):
                fn()
        load0 = os.getloadavg()[0]
        for _ in range(rounds):
            for name, fn in (("plugin", plugin), ("hermes", hermes)):
                t = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t)
        load1 = os.getloadavg()[0]
        mp, mh = statistics.median(times["plugin"]), statistics.median(times["hermes"])
        print("rounds %d (interleaved), uid %d, bwrap %s, load average %.2f before, %.2f after"
              % (rounds, os.getuid(), inv["bwrap"]["path"], load0, load1))
        print("(p) plugin: subprocess → bwrun → bash -c true        median %.2f ms" % (mp * 1000))
        print("(h) Hermes' argv: prlimit bwrap … prlimit bash -c true  median %.2f ms" % (mh * 1000))
        print("ratio (p)/(h): %.2f×" % (mp / mh))
    finally:
        sb.cleanup()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
