"""End-to-end tests of the environment's runtime (warm.py: bwrun
--serve), in real sandboxes as an unprivileged user (test_e2e.py's
fixtures; as root, test_e2e.test_as_unprivileged_user runs this file
too, as bwtest)."""

import logging
import os
import signal
import threading
import time

import pytest

from test_e2e import SECRETS, create, fake_bwrun, gone, host, needs_user  # noqa: F401 (host: fixture)


def no_spawn(monkeypatch, plugin):
    """Make every process start of the plugin's command path fail: what
    runs after this went through the server."""
    def refuse(*a, **k):
        raise OSError("no process may be started here (the server must run the command)")
    monkeypatch.setattr(plugin.process.subprocess, "Popen", refuse)


@needs_user
def test_commands_go_through_the_server_sandboxed(plugin, host, monkeypatch):
    """create_environment leaves a proven server; with process starts
    forbidden, commands still run (through it), in the sandbox: the
    credentials are not there (control: the host reads them), the exit
    status and a cd come back."""
    env = create(plugin, host)
    srv = env._sandbox.warm
    assert srv is not None and srv.alive()
    no_spawn(monkeypatch, plugin)
    r = env.execute("cat ~/.ssh/id_rsa ~/.aws/credentials $HERMES_HOME/.env; echo rc=$?")
    assert not any(s in r["output"] for s in SECRETS) and "rc=1" in r["output"], r
    r = env.execute("echo hello; echo err >&2; exit 7")
    assert r["returncode"] == 7 and "hello" in r["output"] and "err" in r["output"], r
    r = env.execute("cd sub && pwd")
    assert r["output"].strip() == host["proj"] + "/sub", r
    r = env.execute("cat", stdin_data="fed\n") if plugin.variant == "standalone" else env.execute("echo fed | cat")
    assert "fed" in r["output"], r
    monkeypatch.undo()
    assert open(os.path.join(host["home"], ".ssh", "id_rsa")).read() == "SECRET-SSH\n"
    env.cleanup()
    assert not srv.alive()


@needs_user
def test_timeout_through_the_server(plugin, host, monkeypatch):
    """The timeout is bwrun's, in the server: 124, nothing left, the next
    command runs (through the server)."""
    env = create(plugin, host)
    no_spawn(monkeypatch, plugin)
    token = "warm-to-%d" % os.getpid()
    r = env.execute("bash -c 'sleep 300; :' %s &\nsleep 30; echo late" % token, timeout=2)
    assert r["returncode"] == 124 and "late" not in r["output"], r
    assert env.execute("echo ok")["output"].strip() == "ok"
    monkeypatch.undo()  # gone() runs pgrep
    assert gone(token), "a background child outlived the timeout"
    env.cleanup()


@needs_user
@pytest.mark.parametrize("how", ["none", "nononce"])
def test_a_dead_server_falls_back_with_the_proof(plugin, host, monkeypatch, caplog, how):
    """The server killed: the next command runs through bwrun (one log
    line), proven: with the real bwrun it runs sandboxed; with a bwrun
    that runs on the host and proves nothing it is 125 and the output
    (the secret) is withheld."""
    env = create(plugin, host)
    srv = env._sandbox.warm
    os.kill(srv._proc.pid, signal.SIGKILL)
    srv._proc.wait()
    with caplog.at_level(logging.WARNING):
        r = env.execute("cat ~/.ssh/id_rsa; echo rc=$?")
        assert "SECRET" not in r["output"] and "rc=1" in r["output"], r
        r = env.execute("echo again")
        assert r["output"].strip() == "again", r
    lines = [x for x in caplog.messages if "runtime is unreachable" in x]
    assert len(lines) == 1, caplog.messages
    env._sandbox.bwrun = os.path.join(fake_bwrun(host, how), "bwrun")
    r = env.execute("cat ~/.ssh/id_rsa")
    assert r["returncode"] == 125 and "SECRET" not in r["output"], r
    assert [x for x in r["output"].splitlines() if x.startswith("[bwpolicy] no proof")], r
    env.cleanup()


@needs_user
def test_a_server_killed_mid_command_is_125_not_output(plugin, host):
    """The server SIGKILLed while a command runs: no status, so 125 and
    the output it printed is withheld; the next command (through bwrun)
    finishes the scan the dead server left pending before it runs."""
    env = create(plugin, host)
    srv = env._sandbox.warm
    marker = os.path.join(host["proj"], "started")
    res = {}
    t = threading.Thread(target=lambda: res.update(r=env.execute("echo PRINTED-%s; touch %s; sleep 30" % ("X", marker))))
    t.start()
    deadline = time.monotonic() + 60
    while not os.path.exists(marker) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert os.path.exists(marker)
    os.kill(srv._proc.pid, signal.SIGKILL)
    t.join(60)
    r = res["r"]
    assert r["returncode"] == 125 and "PRINTED-X" not in r["output"], r
    assert [x for x in r["output"].splitlines() if x.startswith("[bwpolicy] no proof")], r
    r = env.execute("echo next")
    assert r["returncode"] == 0 and r["output"].strip() == "next", r
    env.cleanup()


@needs_user
def test_kill_through_the_server_finishes_the_scan(hermes_plugin, host):
    """Hermes' kill path (handle.kill: SIGTERM, i.e. the kill request):
    the sandbox dies, the reply comes after the scan, the environment is
    not tainted."""
    env = create(hermes_plugin, host)
    marker = os.path.join(host["proj"], "up")
    h = env._run_bash("touch %s; sleep 60" % marker, timeout=120)
    deadline = time.monotonic() + 30
    while h.returncode is None and time.monotonic() < deadline and not os.path.exists(marker):
        time.sleep(0.02)
    assert os.path.exists(marker)
    t0 = time.monotonic()
    h.kill()
    assert h.returncode is not None and time.monotonic() - t0 < 20
    assert h.status is not None and h.status["outcome"] == "signaled", (h.status, h.reason)
    assert env._sandbox.tainted is None
    env.cleanup()


@needs_user
def test_an_unanswered_kill_abandons_the_server(hermes_plugin, host, monkeypatch):
    """A server that does not answer a command's kill (the kill request
    lost: Call.send_signal does nothing here) past KILL_GRACE: kill()
    returns, the server's process group is killed and the sandbox with
    it, and the next command runs through its own bwrun (which finishes
    the scan the server left pending). Before, the handle only stopped
    reading the reply and then waited for output that never ended, and
    later commands still went to the stuck server."""
    env = create(hermes_plugin, host)
    srv = env._sandbox.warm
    monkeypatch.setattr(hermes_plugin.warm.Call, "send_signal", lambda self, sig: None)
    monkeypatch.setattr(hermes_plugin.process, "KILL_GRACE", 2.0)
    marker = os.path.join(host["proj"], "up-unanswered")
    token = "warm-unanswered-%d" % os.getpid()
    h = env._run_bash("touch %s; bash -c 'sleep 60; :' %s" % (marker, token), timeout=120)
    assert isinstance(h._proc, hermes_plugin.warm.Call), "the command did not go through the server"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not os.path.exists(marker):
        time.sleep(0.02)
    assert os.path.exists(marker)
    t = threading.Thread(target=h.kill, daemon=True)
    t0 = time.monotonic()
    t.start()
    t.join(40)
    assert not t.is_alive(), "kill() still waiting %.0f s later" % (time.monotonic() - t0)
    assert not srv.alive()
    monkeypatch.undo()  # gone() runs pgrep
    assert gone(token), "the sandbox outlived its abandoned server"
    r = env.execute("echo next")
    assert r["returncode"] == 0 and r["output"].strip() == "next", r
    assert not srv.alive(), "a later command restarted the abandoned server"
    env.cleanup()


@needs_user
def test_the_server_ends_with_the_plugin_process(host):
    """A plugin process that dies (SIGKILL: no cleanup) takes its server
    along (the --parent-fd pipe); control: while it lives, the server
    does."""
    import subprocess
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    script = ("import sys, time; sys.path.insert(0, %r); import conftest; p = conftest.load_plugin('standalone'); "
              "from conftest import Ctx; e = p.register(Ctx()).create_environment(cwd=%r, timeout=60, task_id='die'); "
              "print(e._sandbox.warm._proc.pid, flush=True); time.sleep(600)" % (here, host["proj"]))
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        pid = int(child.stdout.readline())
        time.sleep(1.5)
        assert _alive(pid), "control: the server died while the plugin process lives"
        child.kill()
        child.wait()
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(pid), "the server outlived the plugin process"
    finally:
        child.kill()
        child.wait()


def _alive(pid):
    """Whether pid runs (a zombie does not)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
