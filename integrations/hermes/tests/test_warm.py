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
        _kill_plugin_process(child, pid)
        assert not _alive(pid), "the server outlived the plugin process"
    finally:
        child.kill()
        child.wait()


def _kill_plugin_process(child, pid):
    """SIGKILL the plugin process child (its server, pid, alive before:
    the control), then give the server up to 10 s to end."""
    assert _alive(pid), "control: the server died while the plugin process lives"
    child.kill()
    child.wait()
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)


def _alive(pid):
    """Whether pid runs (a zombie does not)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@needs_user
def test_timeouts_back_to_back_through_the_server(plugin, host, monkeypatch):
    """Stress (bounded: 6 rounds of ~1 s): a timed-out command, its kill
    request racing the server's own timeout (NATURAL_END 0: the kill
    byte goes as Hermes' deadline passes), then a command that must get
    its status: never a spurious 125 (no reply) after a timeout."""
    env = create(plugin, host)
    no_spawn(monkeypatch, plugin)
    monkeypatch.setattr(plugin.process, "NATURAL_END", 0.0)
    for i in range(6):
        r = env.execute("sleep 30; echo late", timeout=1)
        assert r["returncode"] in (124, 125) and "late" not in r["output"], (i, r)
        assert not [x for x in r["output"].splitlines() if x.startswith("[bwpolicy] no proof")], (i, r)
        r = env.execute("echo ok%d" % i)
        assert r["returncode"] == 0 and r["output"].strip() == "ok%d" % i, (i, r)
    env.cleanup()


@needs_user
def test_a_child_forked_without_exec_does_not_keep_the_server(host):
    """A plugin process that forked a child without exec (os.fork: the
    child has a copy of every descriptor, the runtime's parent pipe
    included) and then dies takes its server along although the child
    lives; the child's own commands run through bwrun. Before, the
    child's copy of the pipe kept the server alive."""
    import subprocess
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    script = ("import os, sys, time; sys.path.insert(0, %r); import conftest; p = conftest.load_plugin('standalone'); "
              "from conftest import Ctx; e = p.register(Ctx()).create_environment(cwd=%r, timeout=60, task_id='fork'); "
              "pid = os.fork()\n"
              "if pid == 0:\n"
              "    r = e.execute('echo child-ran')\n"
              "    print('child', r['returncode'], r['output'].strip(), e._sandbox.warm.alive(), flush=True)\n"
              "    time.sleep(600)\n"
              "    os._exit(0)\n"
              "print(e._sandbox.warm._proc.pid, pid, flush=True); time.sleep(600)" % (here, host["proj"]))
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=dict(os.environ))
    forked = None
    try:
        lines = []
        reader = threading.Thread(target=lambda: lines.extend(child.stdout.readline().split() for _ in range(2)), daemon=True)
        reader.start()
        reader.join(60)
        srv_line = [x for x in lines if x and x[0] != "child"][:1]
        forked = int(srv_line[0][1]) if srv_line else None
        assert len(lines) == 2 and all(lines), "the plugin process or its forked child did not report: %r" % lines
        srv_line = srv_line[0]
        child_line = [x for x in lines if x and x[0] == "child"][0]
        pid = int(srv_line[0])
        assert child_line[1:] == ["0", "child-ran", "False"], child_line
        time.sleep(1.0)
        _kill_plugin_process(child, pid)
        assert _alive(forked), "control: the forked child is gone too"
        assert not _alive(pid), "the server outlived the plugin process (its forked child kept the pipe)"
    finally:
        child.kill()
        child.wait()
        if forked:
            try:
                os.kill(forked, signal.SIGKILL)
            except OSError:
                pass


@needs_user
def test_a_default_socket_timeout_does_not_cut_the_reply(plugin, host, monkeypatch):
    """A host program that set socket.setdefaulttimeout (a library may):
    a command longer than it still gets its status through the server.
    Before, the reply's receive timed out: 125, output withheld."""
    import socket
    env = create(plugin, host)
    no_spawn(monkeypatch, plugin)
    old = socket.getdefaulttimeout()
    socket.setdefaulttimeout(0.3)
    try:
        r = env.execute("sleep 1.5; echo slow-done")
    finally:
        socket.setdefaulttimeout(old)
    assert r["returncode"] == 0 and "slow-done" in r["output"], r
    env.cleanup()


@needs_user
def test_an_outside_holder_of_the_output_does_not_hang_the_command(plugin, host, monkeypatch):
    """The command's output pipe still held open by someone outside the
    sandbox once the run has ended (here the test keeps a copy of the
    descriptor sent to the server; in life a sandboxed process could
    hand it to a host process over a socket the sandbox reaches): the
    command still ends with its status and output. Before, the
    supervisor waited for that pipe's end of file for ever (kill()
    too)."""
    env = create(plugin, host)
    kept = []
    send = plugin.warm.send_request

    def keeping(sock, args, envv, fds):
        kept.append(os.dup(fds[1]))
        return send(sock, args, envv, fds)
    monkeypatch.setattr(plugin.warm, "send_request", keeping)
    res = {}
    t = threading.Thread(target=lambda: res.update(r=env.execute("echo held-output")), daemon=True)
    t.start()
    t.join(30)
    try:
        assert kept, "the command did not go through the server"
        assert not t.is_alive(), "the command never ended while its output pipe was held outside"
        r = res["r"]
        assert r["returncode"] == 0 and "held-output" in r["output"], r
    finally:
        for fd in kept:
            os.close(fd)
        t.join(10)
    env.cleanup()


@needs_user
def test_descriptors_numbered_past_1024(host):
    """A host program with more than 1024 files open: the plugin's pipes
    get numbers select() refuses; commands still run (through the server
    and through bwrun). Before, run_to_end's select() raised. The
    standalone environment: in Hermes' worlds, Hermes reads the handle
    itself (with select(), its own limit)."""
    import resource
    import conftest
    plugin = conftest.load_plugin("standalone")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 1400
    if hard != resource.RLIM_INFINITY and hard < want:
        pytest.fail("RLIMIT_NOFILE's hard limit %d is below %d: the test cannot open its descriptors" % (hard, want))
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    env = create(plugin, host)
    fillers = []
    try:
        while True:
            fd = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
            fillers.append(fd)
            if fd >= 1100:
                break
        r = env.execute("echo high-fds")
        assert r["returncode"] == 0 and "high-fds" in r["output"], r
        srv, env._sandbox.warm = env._sandbox.warm, None  # bwrun as a process of its own
        try:
            r = env.execute("echo high-fds-bwrun")
        finally:
            env._sandbox.warm = srv
        assert r["returncode"] == 0 and "high-fds-bwrun" in r["output"], r
    finally:
        for fd in fillers:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    env.cleanup()
