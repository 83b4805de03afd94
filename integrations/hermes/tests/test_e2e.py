"""End-to-end tests: real commands through the plugin, in real sandboxes
(bwpolicy and bwrun built from this checkout, the system bwrap or
$BWPOLICY_BWRAP), as an unprivileged user. Run as root, the one test
test_as_unprivileged_user re-runs this file as bwtest (runuser), since
the unprivileged run is what counts; run as any other user, the tests
run directly."""

import json
import os
import shutil
import subprocess
import tempfile
import time

import pytest

from conftest import Ctx, PLUGIN_DIR

REPO = os.path.abspath(os.path.join(PLUGIN_DIR, "..", ".."))
ROOT = os.getuid() == 0
BWTEST = "bwtest"


def build_binaries():
    """bwpolicy and bwrun from this checkout, in a directory every user
    can read (outside /tmp: the sandbox's /tmp is its own)."""
    out = os.environ.get("BWPOLICY_E2E_BIN")
    if out:
        return out
    out = tempfile.mkdtemp(prefix="bwpolicy-hermes-e2e-bin-", dir="/var/tmp")
    os.chmod(out, 0o755)
    env = dict(os.environ, PATH=os.environ.get("PATH", "") + ":/usr/local/go/bin")
    subprocess.run(["go", "build", "-o", out + "/", "./cmd/bwpolicy", "./cmd/bwrun"], cwd=REPO, env=env, check=True)
    return out


@pytest.mark.skipif(not ROOT, reason="run directly: this user is already unprivileged")
def test_as_unprivileged_user():
    """Root runs the end-to-end tests as bwtest (created if missing)."""
    if subprocess.run(["id", BWTEST], capture_output=True).returncode != 0:
        subprocess.run(["useradd", "--system", "--no-create-home", BWTEST], check=True)
    built = not os.environ.get("BWPOLICY_E2E_BIN")
    bins = build_binaries()
    try:
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "BWPOLICY_E2E_BIN": bins}
        if os.environ.get("BWPOLICY_BWRAP"):
            env["BWPOLICY_BWRAP"] = os.environ["BWPOLICY_BWRAP"]
        r = subprocess.run(["runuser", "-u", BWTEST, "--", "/usr/bin/env", "-i"] + ["%s=%s" % kv for kv in env.items()] +
                           ["/usr/bin/python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rA", os.path.abspath(__file__),
                            os.path.join(os.path.dirname(os.path.abspath(__file__)), "test_warm.py")],
                           cwd="/", capture_output=True, text=True, timeout=1200)
        print(r.stdout[-20000:], r.stderr[-5000:])
        assert r.returncode == 0, "the end-to-end tests failed as %s:\n%s\n%s" % (BWTEST, r.stdout[-20000:], r.stderr[-5000:])
        # Only this test skips itself there; every other one ran.
        last = r.stdout.strip().splitlines()[-1]
        assert " passed" in last and "failed" not in last and ("skipped" not in last or "1 skipped" in last), last
    finally:
        if built:
            shutil.rmtree(bins, ignore_errors=True)


needs_user = pytest.mark.skipif(ROOT, reason="run as bwtest by test_as_unprivileged_user")


@pytest.fixture
def host(monkeypatch):
    """A fake HOME with credentials, HERMES_HOME with a config, a project."""
    base = tempfile.mkdtemp(prefix="bwpolicy-hermes-e2e-", dir="/var/tmp")
    home = os.path.join(base, "home")
    hermes = os.path.join(home, ".hermes")
    proj = os.path.join(home, "proj")
    for d in (os.path.join(home, ".ssh"), os.path.join(proj, "sub"), hermes):
        os.makedirs(d)
    os.makedirs(os.path.join(home, ".aws"))
    with open(os.path.join(home, ".ssh", "id_rsa"), "w") as f:
        f.write("SECRET-SSH\n")
    with open(os.path.join(home, ".aws", "credentials"), "w") as f:
        f.write("SECRET-AWS\n")
    with open(os.path.join(hermes, ".env"), "w") as f:
        f.write("OPENAI_API_KEY=SECRET-HERMES\n")
    with open(os.path.join(hermes, "config.yaml"), "w") as f:
        f.write("terminal:\n  backend: bwpolicy\nplugins:\n  entries:\n    bwpolicy:\n      settings:\n        profile: workspace\n")
    monkeypatch.setenv("HOME", home)
    monkeypatch.setenv("HERMES_HOME", hermes)
    monkeypatch.setenv("BWPOLICY_BIN_DIR", os.environ["BWPOLICY_E2E_BIN"])
    for v in ("TMPDIR", "TMP", "TEMP"):
        monkeypatch.delenv(v, raising=False)
    yield {"base": base, "home": home, "hermes": hermes, "proj": proj}
    shutil.rmtree(base, ignore_errors=True)


def create(plugin, host, **kw):
    """An environment the way Hermes makes one: through the factory model
    (tools/terminal_tool_backends.py, _create_environment) in the Hermes
    worlds, directly otherwise."""
    provider = plugin.register(Ctx())
    assert provider.is_available() and provider.check_requirements({}) is True
    if plugin.hermes and not kw:
        return plugin.hermes.routes.create_environment(provider, "bwpolicy", cwd=host["proj"], timeout=60, task_id="e2e")
    return provider.create_environment(cwd=host["proj"], timeout=60, task_id="e2e", **kw)


def host_pid1():
    with open("/proc/1/comm") as f:
        return f.read().strip()


SECRETS = ("SECRET-SSH", "SECRET-AWS", "SECRET-HERMES")


@needs_user
def test_output_exit_code_and_cd(plugin, host):
    """Output (stdout and stderr), the exit status as returncode and
    exit_code, a cd that persists, a file written in the working
    directory found on the host at the same path."""
    env = create(plugin, host)
    r = env.execute("echo hello; echo err >&2; exit 7")
    assert r["returncode"] == 7 and r["exit_code"] == 7 and "hello" in r["output"] and "err" in r["output"], r
    r = env.execute("cd sub && pwd")
    assert r["output"].strip() == host["proj"] + "/sub", r
    r = env.execute("pwd; echo x > here.txt")
    assert r["output"].strip() == host["proj"] + "/sub" and r["returncode"] == 0, r
    assert open(os.path.join(host["proj"], "sub", "here.txt")).read() == "x\n"
    env.cleanup()


@needs_user
def test_commands_run_in_the_sandbox(plugin, host):
    """Each probe fails inside the sandbox; the control (the same probe
    on the host) shows it would work there."""
    env = create(plugin, host)
    r = env.execute("cat ~/.ssh/id_rsa ~/.aws/credentials $HERMES_HOME/.env; echo rc=$?")
    assert not any(s in r["output"] for s in SECRETS) and "rc=1" in r["output"], r
    outside = os.path.join(host["home"], "outside-marker")
    r = env.execute("echo x > %s" % outside)
    assert not os.path.exists(outside), r  # (whether the write fails or vanishes is issue 30's)
    r = env.execute("cat /proc/1/comm")
    assert r["returncode"] == 0 and r["output"].strip() and r["output"].strip() != host_pid1(), r
    # controls: on the host the same reads and the write work
    assert open(os.path.join(host["home"], ".ssh", "id_rsa")).read() == "SECRET-SSH\n"
    env.cleanup()


@needs_user
def test_control_the_hook_based_environment_runs_on_the_host(hermes_plugin, host):
    """The plugin's former design — a LocalEnvironment subclass putting
    bwrun in through _wrap_popen_args — under the main-line model runs
    every command on the host (the secret is read): that hook exists
    only on the pull request, where the same class is sandboxed. The
    tests above would fail for it."""
    env = create(hermes_plugin, host)
    sb = env._sandbox
    Local = hermes_plugin.hermes.local.LocalEnvironment

    class HookEnvironment(Local):
        def _wrap_popen_args(self, args):
            return sb.argv(list(args), chdir=host["proj"], timeout=30)

    old = HookEnvironment(cwd=host["proj"], timeout=30)
    r = old.execute("cat ~/.ssh/id_rsa")
    if hermes_plugin.variant == "mainline":
        assert "SECRET-SSH" in r["output"], r
    else:
        assert "SECRET-SSH" not in r["output"], r
    env.cleanup()


def fake_bwrun(host, how):
    """A directory with the real bwpolicy and a "bwrun" that answers
    --version/--help as the real one but runs the command ON THE HOST,
    writing a status report that proves nothing (how: none, or a report
    without the nonce)."""
    d = os.path.join(host["base"], "fakebin-" + how)
    os.makedirs(d)
    real = os.environ["BWPOLICY_E2E_BIN"]
    os.symlink(os.path.join(real, "bwpolicy"), os.path.join(d, "bwpolicy"))
    with open(os.path.join(d, "bwrun"), "w") as f:
        f.write("""#!/usr/bin/python3
import os, subprocess, sys
a = sys.argv[1:]
if a in (["--version"], ["--help"]):
    os.execv(%r, [%r] + a)
fd = None
while a[0].startswith("--"):
    if a[0] == "--status-fd":
        fd = int(a[1])
    a = a[2:]
code = subprocess.run(a[2:]).returncode
if fd is not None and %r == "nononce":
    os.write(fd, b'{"outcome":"exited","exit_status":%%d,"stale_paths":[],"set_aside":[],"warnings":[],"message":""}\\n' %% code)
sys.exit(code)
""" % (os.path.join(real, "bwrun"), os.path.join(real, "bwrun"), how))
    os.chmod(os.path.join(d, "bwrun"), 0o755)
    return d


@needs_user
@pytest.mark.parametrize("how", ["none", "nononce"])
def test_a_bwrun_that_proves_nothing_is_refused(plugin, host, monkeypatch, how):
    """A bwrun that runs the command outside the sandbox and reports no
    proof: create_environment raises (its probe is not proven); an
    environment whose bwrun is swapped afterwards answers 125 and
    withholds the output (the secret the host run read)."""
    d = fake_bwrun(host, how)
    env = create(plugin, host)
    monkeypatch.setenv("BWPOLICY_BIN_DIR", d)
    provider = plugin.register(Ctx())
    with pytest.raises(plugin.sandbox.SandboxUnavailable, match="no proof|probe failed"):
        provider.create_environment(cwd=host["proj"], timeout=60, task_id="fake")
    env._sandbox.warm and env._sandbox.warm.stop()  # bwrun per command (test_warm.py: the server's own)
    env._sandbox.bwrun = os.path.join(d, "bwrun")
    r = env.execute("cat ~/.ssh/id_rsa")
    assert r["returncode"] == 125 and "SECRET" not in r["output"], r
    assert [l for l in r["output"].splitlines() if l.startswith("[bwpolicy] no proof")], r
    env.cleanup()


@needs_user
def test_timeout_kills_the_sandbox(plugin, host):
    """The timeout goes to bwrun: the command and what it started in the
    background are gone (exit 124), the environment is not tainted and
    runs the next command."""
    env = create(plugin, host)
    token = "to-token-%d" % os.getpid()
    r = env.execute("bash -c 'sleep 300; :' %s &\nsleep 30; echo late" % token, timeout=2)
    assert r["returncode"] == 124 and "late" not in r["output"], r
    assert gone(token), "a background child outlived the timeout"
    assert env._sandbox.tainted is None
    assert env.execute("echo ok")["output"].strip() == "ok"
    env.cleanup()


@needs_user
@pytest.mark.parametrize("how", ["cd /tmp", "mkdir -p /tmp/d && ln -s /tmp/d lnk && cd lnk", "cd /dev"])
def test_a_cwd_the_sandbox_does_not_show_falls_back(plugin, host, how):
    env = create(plugin, host)
    r = env.execute(how)
    assert r["output"].count("[bwpolicy] the working directory") == 1 and "back to %s" % host["proj"] in r["output"], r
    for _ in range(2):
        r = env.execute("pwd")
        assert r["returncode"] == 0 and r["output"].strip() == host["proj"], r
    env.cleanup()


# -- Hermes' routes (issue 30, item 6) ---------------------------------------------

def gone(token, wait=5.0):
    """No process whose command line holds token (after up to wait s)."""
    end = time.monotonic() + wait
    while time.monotonic() < end:
        if subprocess.run(["pgrep", "-f", token], capture_output=True).returncode != 0:
            return True
        time.sleep(0.2)
    return False


@needs_user
def test_background_runs_in_the_sandbox(hermes_plugin, host):
    """terminal(background=True) with env_type bwpolicy goes through
    spawn_via_env, i.e. env.execute: inside the sandbox, and it ends with
    the command. Control: the local route runs it on the host."""
    env = create(hermes_plugin, host)
    routes = hermes_plugin.hermes.routes
    token = "bg-token-%d" % os.getpid()
    out = os.path.join(host["proj"], "bg-out")
    cmd = "cat ~/.ssh/id_rsa > %s 2>&1; touch %s/bg-outside; bash -c 'sleep 60; :' %s" % (out, host["home"], token)
    route, result, paths = routes.background("bwpolicy", env, cmd, host["proj"])
    assert route == "spawn_via_env" and result["returncode"] == 0, result
    assert gone(token), "the background process outlived its sandbox"
    assert not os.path.exists(os.path.join(host["home"], "bg-outside"))
    assert "SECRET" not in (open(out).read() if os.path.exists(out) else "")
    # control: the local route reads the secret on the host
    route, proc, _ = routes.background("local", env, cmd, host["proj"])
    try:
        end = time.monotonic() + 10
        while time.monotonic() < end and "SECRET" not in (open(out).read() if os.path.exists(out) else ""):
            time.sleep(0.1)
        assert "SECRET-SSH" in open(out).read()
        assert not gone(token, wait=0.5), "the detector sees a host background process"
    finally:
        os.killpg(proc.pid, 9)
        proc.wait()
    env.cleanup()


@needs_user
def test_execute_code_runs_in_the_sandbox(hermes_plugin, host):
    env = create(hermes_plugin, host)
    routes = hermes_plugin.hermes.routes
    code = ("import os\n"
            "for p in ('~/.aws/credentials', '~/.ssh/id_rsa'):\n"
            "    try: print(open(os.path.expanduser(p)).read())\n"
            "    except OSError as e: print('refused', p, e.errno)\n"
            "for p in (%r, %r):\n"
            "    try: open(p, 'w').write('x'); print('wrote', p)\n"
            "    except OSError as e: print('refused', p, e.errno)\n"
            % (os.path.join(host["home"], "ec-outside"), os.path.join(host["proj"], "ec-inside")))
    route, r = routes.execute_code("bwpolicy", env, code)
    assert route == "remote" and r["returncode"] == 0, r
    assert not any(s in r["output"] for s in SECRETS) and r["output"].count("refused ~/") == 2, r
    assert "bwrun: warning" not in r["output"], r
    assert not os.path.exists(os.path.join(host["home"], "ec-outside"))
    assert open(os.path.join(host["proj"], "ec-inside")).read() == "x"
    route, r = routes.execute_code("local", env, code)  # control: on the host
    assert "SECRET-AWS" in r["output"], r
    env.cleanup()


@needs_user
def test_file_tools_run_in_the_sandbox(hermes_plugin, host):
    env = create(hermes_plugin, host)
    routes = hermes_plugin.hermes.routes
    ak = os.path.join(host["home"], ".ssh", "authorized_keys")
    r = routes.write_file(env, ak, "ssh-ed25519 EVIL\n")
    # never on the host (that the write also reports failure is issue 30, item 3)
    assert not os.path.exists(ak), r
    r = routes.read_file(env, os.path.join(host["home"], ".aws", "credentials"))
    assert "SECRET" not in r["output"] and r["returncode"] != 0, r
    big = "".join(chr(0x61 + i % 26) for i in range(1 << 16)) * 80  # 5 MiB
    path = os.path.join(host["proj"], "big.txt")
    r = routes.write_file(env, path, big)
    assert r["returncode"] == 0, r
    with open(path) as f:
        assert f.read() == big
    r = routes.read_file(env, path)
    assert r["output"] == big, (len(r["output"]), r["output"][:200])
    # control: the host can write the key file the sandbox could not
    with open(ak, "w") as f:
        f.write("ok\n")
    env.cleanup()


@needs_user
def test_two_environments_are_isolated(plugin, host):
    a, b = create(plugin, host), create(plugin, host)
    sa, sb = a._sandbox, b._sandbox
    r = a.execute('echo a-tmp > "$TMPDIR/f"; echo a-state > %s/f; echo "$TMPDIR"' % sa.state_dir)
    assert r["exit_code"] == 0 and r["output"].strip() == sa.scratch_dir, r
    r = b.execute("cat %s/f; cat %s/f" % (sa.scratch_dir, sa.state_dir))
    assert "a-tmp" not in r["output"] and "a-state" not in r["output"] and r["exit_code"] != 0, r
    r = b.execute("ls -A %s/sandboxes; ls -A %s/cache/scratch; echo x > %s/cache/scratch/shared" % ((host["hermes"],) * 3))
    listed = r["output"].split()
    assert os.path.basename(sb.state_dir) in listed and os.path.basename(sb.scratch_dir) in listed, r
    assert os.path.basename(sa.state_dir) not in listed and os.path.basename(sa.scratch_dir) not in listed, r
    assert not os.path.exists(os.path.join(host["hermes"], "cache", "scratch", "shared"))
    # control: the files are there on the host
    assert open(os.path.join(sa.scratch_dir, "f")).read() == "a-tmp\n"
    a.cleanup()
    b.cleanup()


@needs_user
def test_credential_appearing_recompiles_once_and_stays_hidden(plugin, host):
    env = create(plugin, host)
    assert env.execute("true")["exit_code"] == 0
    gen = env._sandbox.generation
    os.makedirs(os.path.join(host["home"], ".kube"))
    with open(os.path.join(host["home"], ".kube", "config"), "w") as f:
        f.write("SECRET-KUBE\n")
    r = env.execute("cat ~/.kube/config; echo ran")
    assert "SECRET" not in r["output"] and r["output"].strip().endswith("ran"), r
    assert env._sandbox.generation == gen + 1 and env._sandbox.recompiles == 1
    # Hidden: absent under the allowlist home layout (an empty mask under
    # the denylist one); either way nothing is listed and no recompile.
    r = env.execute("ls -A ~/.kube 2>/dev/null; echo ran")
    assert r["output"].strip() == "ran" and env._sandbox.recompiles == 1, r
    env.cleanup()


@needs_user
def test_spoofed_125_does_not_recompile(plugin, host):
    env = create(plugin, host)
    r = env.execute("echo 'bwrun: stale invocation: recompile' >&2; exit 125")
    assert r["exit_code"] == 125 and env._sandbox.recompiles == 0, r
    env.cleanup()


@needs_user
def test_cleanup_leaves_nothing(plugin, host):
    env = create(plugin, host)
    env.execute('echo t > "$TMPDIR/t"; echo s > %s/s' % env._sandbox.state_dir)
    env.cleanup()
    left = []
    for root in (os.path.join(host["hermes"], "sandboxes"), os.path.join(host["hermes"], "cache", "scratch")):
        left += os.listdir(root) if os.path.isdir(root) else []
    assert left == [], left


@needs_user
def test_spilled_result_shown_to_one_run(plugin, host, monkeypatch):
    """Hermes' oversized tool result (HERMES_HOME/cache/spillover/<id>.txt):
    readable by the run whose command names it, not by its sibling, not by
    the next run; a symlink or '..' is refused by the plugin, and by bwrun
    when the plugin is bypassed (then nothing runs at all)."""
    spill = os.path.join(host["hermes"], "cache", "spillover")
    os.makedirs(spill)
    for name, text in (("call_1.txt", "BIG-RESULT\n"), ("call_2.txt", "OTHER-RESULT\n")):
        with open(os.path.join(spill, name), "w") as f:
            f.write(text)
    os.symlink(os.path.join(host["home"], ".ssh", "id_rsa"), os.path.join(spill, "link.txt"))
    env = create(plugin, host)
    one = os.path.join(spill, "call_1.txt")
    r = env.execute('cat %s; n=call_2; cat %s/$n.txt; ls -A %s' % (one, spill, spill))
    assert "BIG-RESULT" in r["output"] and "OTHER-RESULT" not in r["output"], r
    # only the one file shows in the hidden directory
    assert [l for l in r["output"].splitlines() if l.endswith(".txt") and "/" not in l] == ["call_1.txt"], r
    # the next run does not name it: hidden again (control: it is there on the host)
    r = env.execute('n=call_1; cat %s/$n.txt; echo rc=$?' % spill)
    assert "BIG-RESULT" not in r["output"] and "rc=1" in r["output"], r
    assert open(one).read() == "BIG-RESULT\n"
    # a symlink below the root, and '..', are refused by the plugin; the command runs without them
    for p, why in ((os.path.join(spill, "link.txt"), "a symlink on the way"),
                   (spill + "/../spillover/call_1.txt", "not a clean path")):
        for kw in ({}, {"expose": [p]}):
            r = env.execute("cat %s; echo ran" % (p if not kw else "x"), **kw)
            assert "SECRET" not in r["output"] and "BIG-RESULT" not in r["output"], r
            assert r["output"].splitlines()[-1].startswith("[bwpolicy] not shown to the command: ") and why in r["output"], r
            assert "ran" in r["output"], r
    # the plugin's check bypassed: the copy is not taken through the symlink
    monkeypatch.setattr(plugin.expose, "check", lambda path, roots: None)
    r = env.execute("cat %s; echo ran" % os.path.join(spill, "link.txt"))
    assert "SECRET" not in r["output"] and "ran" in r["output"] and "cannot be copied" in r["output"], r
    # and its copy skipped too: bwrun finds no pinned copy and nothing runs
    # (never the file as it is on the host)
    monkeypatch.setattr(env._sandbox, "pin", lambda path, replace=False: None)
    marker = os.path.join(host["proj"], "ran-with-link")
    r = env.execute("cat %s; touch %s" % (os.path.join(spill, "link.txt"), marker))
    assert r["exit_code"] == 125 and "SECRET" not in r["output"], r
    assert "could not be set up" in r["output"] and "no copy was pinned" in r["output"], r
    assert not os.path.exists(marker) and env._sandbox.recompiles == 0
    env.cleanup()


@needs_user
def test_colliding_tool_call_ids_each_session_reads_its_own(plugin, host, monkeypatch):
    """Hermes' test_two_sessions_with_the_same_tool_call_id_each_read_their_own_result:
    the archive name comes from the tool call id alone and ids repeat
    between sessions, so the second session's result replaces the first's
    on the host. Each environment pins its result when Hermes stores it
    (expose_spillover_file) and reads that copy; one that was never
    stored one pins it at its first showing; the copies are not reachable
    at their own path, and cleanup removes them. Control: showing the host
    file as it is (bwrun --expose) gives the first session the second's
    result."""
    spill = os.path.join(host["hermes"], "cache", "spillover")
    os.makedirs(spill)
    path = os.path.join(spill, "functions.terminal:0.txt")

    def store(env, session):
        with open(path, "w") as f:
            f.write("".join("%s line %d\n" % (session, i) for i in range(4000)))
        assert env.expose_spillover_file(path)

    first, second, third = create(plugin, host), create(plugin, host), create(plugin, host)
    store(first, "FIRST-SESSION")
    store(second, "SECOND-SESSION")
    out = first.execute("head -n 1 %s; grep -c SECOND-SESSION %s" % (path, path))["output"].split("\n")
    assert out[0] == "FIRST-SESSION line 0" and out[1] == "0", out
    assert second.execute("head -n 1 %s" % path)["output"].strip() == "SECOND-SESSION line 0"
    # never stored for third: pinned when a command first names it
    assert third.execute("head -n 1 %s" % path)["output"].strip() == "SECOND-SESSION line 0"
    store(second, "THIRD-WRITE")
    assert third.execute("head -n 1 %s" % path)["output"].strip() == "SECOND-SESSION line 0"
    assert first.execute("head -n 1 %s" % path)["output"].strip() == "FIRST-SESSION line 0"
    assert second.execute("head -n 1 %s" % path)["output"].strip() == "THIRD-WRITE line 0"
    # pruned on the host: the copy is still shown
    os.unlink(path)
    assert first.execute("head -n 1 %s" % path)["output"].strip() == "FIRST-SESSION line 0"
    # the copies are bind sources only
    sandboxes = os.path.join(host["hermes"], "sandboxes")
    r = first.execute("ls -A %s; cat %s/*/*/* 2>&1" % (sandboxes, sandboxes))
    assert "SESSION line" not in r["output"] and r["output"].split()[0].startswith("bwrap-"), r
    # control: the host file as it is now
    store(second, "SECOND-SESSION")
    argv = first._sandbox.argv
    monkeypatch.setattr(first._sandbox, "argv", lambda *a, **kw: [("--expose" if x == "--expose-pinned" else x) for x in argv(*a, **kw)])
    assert first.execute("head -n 1 %s" % path)["output"].strip() == "SECOND-SESSION line 0"
    private = [e._sandbox.private_dir for e in (first, second, third)]
    for env in (first, second, third):
        env.cleanup()
    assert not any(os.path.exists(p) for p in private)


@needs_user
def test_staged_session(plugin, host):
    """staged: session: an environment reads only HERMES_HOME/attachments/<its
    sandbox ID>; another session's directory and Hermes' flat files stay
    hidden. Its directory created after the environment makes the
    invocation stale once (recompiled, then readable). Control: the default
    (staged: all) reads the other session's attachment."""
    att = os.path.join(host["hermes"], "attachments")
    os.makedirs(os.path.join(att, "other-session"))
    for rel, text in (("other-session/theirs.txt", "THEIRS\n"), ("flat.txt", "FLAT\n")):
        with open(os.path.join(att, rel), "w") as f:
            f.write(text)
    cfg = os.path.join(host["hermes"], "config.yaml")
    with open(cfg, "w") as f:
        f.write("plugins:\n  entries:\n    bwpolicy:\n      settings:\n        profile: workspace\n        staged: session\n")
    env = create(plugin, host)
    mine = os.path.join(att, env._sandbox.id)
    os.makedirs(mine)
    with open(os.path.join(mine, "mine.txt"), "w") as f:
        f.write("MINE\n")
    cmd = "cat %s/mine.txt %s/other-session/theirs.txt %s/flat.txt; ls -A %s" % (mine, att, att, att)
    r = env.execute(cmd)
    assert "MINE" in r["output"] and "THEIRS" not in r["output"] and "FLAT" not in r["output"], r
    assert r["output"].strip().splitlines()[-1] == env._sandbox.id, r
    assert env._sandbox.recompiles == 1, "its directory appearing made the invocation stale once"
    env.cleanup()
    # Control: the default shows every session's attachments.
    with open(cfg, "w") as f:
        f.write("plugins:\n  entries:\n    bwpolicy:\n      settings:\n        profile: workspace\n")
    env = create(plugin, host)
    r = env.execute(cmd)
    assert "THEIRS" in r["output"] and "FLAT" in r["output"] and "MINE" in r["output"], r
    env.cleanup()
