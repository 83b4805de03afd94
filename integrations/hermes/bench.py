#!/usr/bin/env python3
"""Per-command cost through the plugin next to Hermes' bubblewrap
backend's argv, side by side (interleaved) in one run, for `true`, `pwd`
and `ls`:

  (p) the plugin's spawn: Sandbox.run → SandboxedProcess (bwrun
      --status-fd W --nonce N --timeout T --chdir CWD INVOCATION --
      /bin/bash -c CMD, the status read and judged, the output relayed),
      read to the end — what the environment's _run_bash returns and
      Hermes' _wait_for_process drains;
  (w) the same through the environment's runtime (warm.py: bwrun
      --serve, started once; each command a request on its socket, the
      status its reply);
  (b) bwrun alone: the same bwrun argv (status pipe, nonce, timeout,
      chdir) from a minimal Popen in the calling thread, its status read
      and judged, no supervisor: (p) - (b) is the plugin's Python side,
      (b) - (h0) what bwrun adds to the same mounts (its Go start-up,
      checks and post-command scan; the seccomp, info, block and status
      descriptors);
  (h) Hermes' backend's argv: prlimit --as --cpu bwrap <the same mounts>
      -- prlimit --nproc /bin/bash -c CMD (the compiled bwrap arguments
      without the seccomp, info, block and status descriptors, each
      --ro-bind-data of an empty descriptor replaced by a read-only bind
      of an empty file, as that backend masks files), spawned the way
      Hermes' LocalEnvironment._run_bash spawns (tools/environments/
      local.py: Popen, stdout piped, preexec_fn=os.setsid: a new
      session), read to the end;
  (h0) the same argv through a plain Popen (no new session), for
      reference.

Run it as an unprivileged user (max_procs applies), with bwpolicy and
bwrun on PATH or in BWPOLICY_BIN_DIR:

  python3 integrations/hermes/bench.py [ROUNDS]

It prints the medians, their ratios, the CPU time this Python process
spends per command of each kind (all its threads; not the children's)
and the load average."""

import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from hermes.process import _OWN_GROUP, judge, new_nonce, read_status, run_to_end  # noqa: E402
from hermes.sandbox import Sandbox, sandbox_id_for  # noqa: E402
from hermes import warm as _warm  # noqa: E402

COMMANDS = ("true", "pwd", "ls")


def hermes_argv(inv, empty, cmd):
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
    return pre + [inv["bwrap"]["path"]] + out + ["--"] + inner + ["/bin/bash", "-c", cmd]


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    base = tempfile.mkdtemp(prefix="bwpolicy-bench-", dir="/var/tmp")
    home = os.path.join(base, "home")
    for d in (".ssh", ".aws", ".gnupg", ".hermes", "proj"):
        os.makedirs(os.path.join(home, d))
    for f in (".npmrc", ".netrc", "proj/a", "proj/b"):
        open(os.path.join(home, f), "w").close()
    os.environ.update(HOME=home, HERMES_HOME=os.path.join(home, ".hermes"))
    empty = os.path.join(base, "empty")
    open(empty, "w").close()
    os.chmod(empty, 0o400)
    sb = Sandbox(sandbox_id=sandbox_id_for("bench"), cwd=os.path.join(home, "proj"), timeout=60)
    try:
        inv = sb.compile()
        srv = _warm.attach(sb)
        if srv is None:
            raise SystemExit("the environment's runtime (bwrun --serve) did not start")

        def plugin(cmd, server=None):
            sb.warm = server
            h = sb.run(["/bin/bash", "-c", cmd], chdir=inv["chdir"], timeout=60)
            out, code = run_to_end(h)
            assert code == 0 and h.status["outcome"] == "exited", (out, code, h.reason)

        def bwrun_alone(cmd):
            nonce = new_nonce()
            r, w = os.pipe()
            argv = sb.argv(["/bin/bash", "-c", cmd], chdir=inv["chdir"], timeout=60, status_fd=w, nonce=nonce)
            p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 pass_fds=(w,), **_OWN_GROUP)
            os.close(w)
            out, _ = p.communicate()
            st, why = judge(read_status(r), nonce)
            assert p.returncode == 0 and st is not None and st["outcome"] == "exited", (out, why)

        def hermes(cmd):
            p = subprocess.Popen(hermes_argv(inv, empty, cmd), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True, preexec_fn=os.setsid)
            out, _ = p.communicate()
            assert p.returncode == 0, out

        def hermes0(cmd):
            p = subprocess.Popen(hermes_argv(inv, empty, cmd), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT)
            out, _ = p.communicate()
            assert p.returncode == 0, out

        kinds = (("plugin", plugin), ("warm", lambda cmd: plugin(cmd, srv)), ("bwrun", bwrun_alone), ("hermes", hermes), ("hermes0", hermes0))
        for cmd in COMMANDS:
            for _, fn in kinds:
                for _ in range(5):
                    fn(cmd)
        times = {(k, c): [] for k, _ in kinds for c in COMMANDS}
        cpu = {k: [] for k, _ in kinds}
        load0 = os.getloadavg()[0]
        order = random.Random(25)
        for _ in range(rounds):
            for cmd in COMMANDS:
                # A new order each time: a bwrun right after another
                # bwrun of the same invocation runs warmer than one after
                # Hermes' argv, so a fixed (or rotated) order favours
                # whichever kind follows the plugin.
                for name, fn in order.sample(kinds, len(kinds)):
                    c = time.process_time()
                    t = time.perf_counter()
                    fn(cmd)
                    times[(name, cmd)].append(time.perf_counter() - t)
                    cpu[name].append(time.process_time() - c)
        load1 = os.getloadavg()[0]
        print("rounds %d (interleaved, each in a shuffled order), uid %d, bwrap %s, load average %.2f before, %.2f after"
              % (rounds, os.getuid(), inv["bwrap"]["path"], load0, load1))
        print("| command | (p) plugin | (w) plugin, warm | (b) bwrun alone | (h) Hermes' argv, as Hermes spawns "
              "| (h0) the same, plain Popen | (p) ÷ (h) | (w) ÷ (h) | (b) ÷ (h) | (p) ÷ (h0) |")
        print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
        for cmd in COMMANDS:
            mp, mw, mb, mh, m0 = (statistics.median(times[(k, cmd)]) for k in ("plugin", "warm", "bwrun", "hermes", "hermes0"))
            print("| `%s` | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.2f× | %.2f× | %.2f× | %.2f× |"
                  % (cmd, mp * 1000, mw * 1000, mb * 1000, mh * 1000, m0 * 1000, mp / mh, mw / mh, mb / mh, mp / m0))
        print("CPU time of this Python process per command (mean, all threads): %s"
              % ", ".join("(%s) %.2f ms" % (k, statistics.mean(cpu[k]) * 1000) for k, _ in kinds))
    finally:
        sb.cleanup()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
