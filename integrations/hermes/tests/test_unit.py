"""Unit tests of the plugin against a fake bwpolicy and bwrun
(tests/fakes: no sandbox), in the three worlds of conftest.py (Hermes'
main line, its bubblewrap pull request, no Hermes): the provider
contract's types, the proof of every run (status channel and nonce),
stale → one recompile, timeouts and the kill that taints, the working
directory check, the configuration sources, the config schema."""

import json
import logging
import os
import threading
import time

import pytest

from conftest import FAKES, PLUGIN_DIR, Ctx, load_plugin


@pytest.fixture
def fakes(tmp_path, monkeypatch):
    fake = tmp_path / "fake"
    fake.mkdir()
    monkeypatch.setenv("FAKE_DIR", str(fake))
    monkeypatch.setenv("BWPOLICY_BIN_DIR", FAKES)
    monkeypatch.setenv("BWPOLICY_BWRAP", "/usr/bin/true")
    monkeypatch.setenv("HERMES_HOME", str(tmp_path / "hermes"))
    (tmp_path / "hermes").mkdir()
    # The fakes run the command's login shell directly: an empty HOME, so
    # the tester's own rc files (a pyenv init took 2.8 s a shell here)
    # neither slow the tests nor change what they see.
    monkeypatch.setenv("HOME", str(tmp_path / "fakehome"))
    (tmp_path / "fakehome").mkdir()
    for k in list(os.environ):
        if k.startswith("FAKE_") and k != "FAKE_DIR":
            monkeypatch.delenv(k)
    return fake


def runs(fake):
    p = fake / "runs"
    return [json.loads(l) for l in p.read_text().splitlines()] if p.exists() else []


def compiles(fake):
    p = fake / "compiles"
    return int(p.read_text()) if p.exists() else 0


def make(plugin, tmp_path, **kw):
    provider = plugin.register(Ctx())
    proj = tmp_path / "proj"
    proj.mkdir(exist_ok=True)
    return provider, provider.create_environment(cwd=str(proj), timeout=30, task_id="t/1", **kw)


# -- the provider contract (agent/terminal_env_provider.py) -----------------

def test_register_and_contract(plugin, fakes):
    ctx = Ctx()
    provider = plugin.register(ctx)
    assert ctx.providers == [provider]
    assert ctx.sections and "read_file" in ctx.sections[0][1]
    assert provider.name == "bwpolicy" and isinstance(provider.display_name, str) and isinstance(provider.description, str)
    assert provider.is_remote is False and provider.is_container is False and provider.skip_container_guards is False
    assert provider.cache_path_base is None
    assert isinstance(provider.strip_env_keys, frozenset)
    assert isinstance(provider.env_description, str) and provider.env_description
    assert provider.is_available() is True
    assert provider.check_requirements({}) is True
    status, detail = provider.probe()
    assert status == "ready" and isinstance(detail, str), (status, detail)
    # a degraded feature is detail, not a status
    assert "memory-cgroup" in detail
    st2 = provider.probe_with_config({"backend_config": {"profile": "workspace", "bogus": 1}})
    assert isinstance(st2, tuple) and st2[0] == "ready" and "terminal.backends.bwpolicy.bogus" in st2[1]
    lines = provider.setup_instructions()
    assert isinstance(lines, list) and lines and all(isinstance(l, str) for l in lines)
    assert "hermes config set terminal.backend bwpolicy" in lines
    rows = provider.doctor_checks()
    assert rows and all(isinstance(r, tuple) and len(r) == 3 and isinstance(r[0], bool) and isinstance(r[1], str)
                        and isinstance(r[2], str) for r in rows), rows
    assert (False, "bwpolicy memory-cgroup", "cgroup v1 (fix: boot with cgroup v2)") in rows
    schema = provider.get_config_schema()
    assert isinstance(schema, dict) and schema
    assert isinstance(provider.resolve_config({"profile": "network"}), dict)
    if plugin.hermes:
        assert isinstance(provider, plugin.hermes.tep.TerminalEnvironmentProvider)
        assert provider.validated_config_schema() == schema  # Hermes' own checks of the schema pass
        assert provider.validated_config({"profile": "network", "x": 1}) == {"profile": "network"}


def test_check_requirements_false_with_reason(plugin, fakes, tmp_path, monkeypatch, caplog):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("BWPOLICY_BIN_DIR", str(empty))
    monkeypatch.setenv("PATH", str(empty))
    provider = plugin.register(Ctx())
    with caplog.at_level(logging.ERROR):
        ok = provider.check_requirements({"env_type": "bwpolicy"})
    assert ok is False
    assert "bwpolicy not found" in caplog.text and "bwrun not found" in caplog.text
    status, detail = provider.probe()
    assert status == "needs_setup" and "bwrun not found" in detail
    assert provider.doctor_checks()[0][0] is False


def test_probe_unavailable_when_no_sandbox_starts(plugin, fakes, monkeypatch):
    monkeypatch.setenv("FAKE_PROBE_FAIL", "1")
    status, detail = plugin.register(Ctx()).probe()
    assert status == "unavailable" and "sandbox-probe" in detail


# -- environments: the seam and the proof ----------------------------------------

def test_create_accepts_unknown_kwargs_and_runs(plugin, fakes, tmp_path):
    provider, env = make(plugin, tmp_path, image="ignored", container_config={}, some_future_key=1)
    if plugin.hermes:
        assert isinstance(env, plugin.hermes.base.BaseEnvironment)
        assert not isinstance(env, plugin.hermes.local.LocalEnvironment)
    r = env.execute("echo hello; exit 3")
    assert r["returncode"] == 3 and r["exit_code"] == 3 and "hello" in r["output"], r
    all_runs = runs(fakes)
    last = all_runs[-1]
    assert last["opts"]["--timeout"] == "30" and last["opts"]["--chdir"] == str(tmp_path / "proj")
    assert "--status-fd" in last["opts"] and len(last["opts"]["--nonce"]) >= 24
    assert len({r["opts"]["--nonce"] for r in all_runs}) == len(all_runs), "a nonce per run"
    env.execute("true", timeout=7)
    assert runs(fakes)[-1]["opts"]["--timeout"] == "7"
    env.cleanup()


def test_no_spawn_outside_bwrun_and_nothing_wrapped_twice(hermes_plugin, fakes, tmp_path):
    """In both Hermes worlds the environment spawns only bwrun (never
    LocalEnvironment's Popen, never the PR's _wrap_popen_args)."""
    local = hermes_plugin.hermes.local
    del local.SPAWNED[:]
    if hasattr(local, "WRAPPED"):
        del local.WRAPPED[:]
    _, env = make(hermes_plugin, tmp_path)
    env.execute("echo x")
    assert local.SPAWNED == [] and getattr(local, "WRAPPED", []) == []
    for r in runs(fakes):
        assert r["cmd"][0] in ("/bin/bash", "/bin/true") and os.path.join(FAKES, "bwrun") not in r["cmd"], r
    env.cleanup()


@pytest.mark.parametrize("how", ["none", "nonce", "nononce", "json", "mismatch"])
def test_a_run_without_proof_is_125_and_withheld(plugin, fakes, tmp_path, monkeypatch, how):
    _, env = make(plugin, tmp_path)
    monkeypatch.setenv("FAKE_STATUS", how)
    r = env.execute("echo THE-OUTPUT; exit 0")
    assert r["returncode"] == 125 and r["exit_code"] == 125, r
    assert "THE-OUTPUT" not in r["output"], r
    lines = [l for l in r["output"].splitlines() if l.startswith("[bwpolicy] no proof")]
    assert len(lines) == 1, r
    assert compiles(fakes) == 1
    env.cleanup()


@pytest.mark.parametrize("how", ["none", "nonce"])
def test_create_environment_proves_the_sandbox(plugin, fakes, tmp_path, monkeypatch, how):
    monkeypatch.setenv("FAKE_STATUS", how)
    provider = plugin.register(Ctx())
    with pytest.raises(plugin.sandbox.SandboxUnavailable, match="no command will run: the sandbox probe failed"):
        provider.create_environment(cwd=str(tmp_path), timeout=10, task_id="x")
    assert os.listdir(tmp_path / "hermes" / "sandboxes") == []


def test_cd_persists(plugin, fakes, tmp_path):
    _, env = make(plugin, tmp_path)
    (tmp_path / "proj" / "sub").mkdir()
    env.execute("cd sub")
    r = env.execute("pwd")
    assert r["output"].strip().endswith("/proj/sub"), r
    assert runs(fakes)[-1]["opts"]["--chdir"].endswith("/proj/sub")
    env.cleanup()


def test_a_read_only_cwd_is_kept_without_chdir(plugin, fakes, tmp_path):
    """A visible directory outside the writable set stays the working
    directory; bwrun gets no --chdir for it (it would note it on stderr at
    every command) and the wrapper's cd takes the command there."""
    _, env = make(plugin, tmp_path)
    r = env.execute("cd /usr")
    assert "[bwpolicy]" not in r["output"], r
    r = env.execute("pwd")
    assert r["output"].strip() == "/usr", r
    assert "--chdir" not in runs(fakes)[-1]["opts"]
    env.execute("cd %s" % (tmp_path / "proj"))
    env.execute("true")
    assert runs(fakes)[-1]["opts"]["--chdir"] == str(tmp_path / "proj")
    env.cleanup()


@pytest.mark.parametrize("where", ["private", "hermes"])
def test_cwd_the_sandbox_does_not_show_falls_back(plugin, fakes, tmp_path, where):
    """A directory in a private mount of the sandbox (the fake invocation
    mounts a tmpfs on /dev/shm), or one it hides (HERMES_HOME), here
    reached through a symlink the command made, is replaced by the
    initial directory with one line."""
    _, env = make(plugin, tmp_path)
    target = "/dev/shm" if where == "private" else str(tmp_path / "hermes")
    r = env.execute("ln -s %s lnk && cd lnk" % target)
    assert r["output"].count("[bwpolicy] the working directory") == 1, r
    assert "back to %s" % (tmp_path / "proj") in r["output"]
    r = env.execute("pwd")
    assert r["output"].strip() == str(tmp_path / "proj") and r["returncode"] == 0, r
    env.cleanup()


def test_stdin_data_reaches_the_command(plugin, fakes, tmp_path):
    _, env = make(plugin, tmp_path)
    data = "0123456789abcdef" * (5 * 65536)  # 5 MiB
    r = env.execute("cat > big.txt", stdin_data=data)
    assert r["returncode"] == 0, r
    assert (tmp_path / "proj" / "big.txt").read_text() == data
    env.cleanup()


def test_stale_recompiles_once_and_reruns(plugin, fakes, tmp_path, monkeypatch):
    _, env = make(plugin, tmp_path)
    assert compiles(fakes) == 1
    monkeypatch.setenv("FAKE_STALE_BELOW", "2")
    r = env.execute("echo ran")
    assert r["returncode"] == 0 and r["output"].strip() == "ran", r
    assert compiles(fakes) == 2
    monkeypatch.setenv("FAKE_STALE_BELOW", "100")
    r = env.execute("echo ran")
    assert r["returncode"] == 125 and "still stale after recompiling once" in r["output"], r
    assert compiles(fakes) == 3
    env.cleanup()


def test_spoofed_125_does_not_recompile(plugin, fakes, tmp_path):
    _, env = make(plugin, tmp_path)
    r = env.execute("echo 'bwrun: stale invocation: recompile' >&2; exit 125")
    assert r["returncode"] == 125 and compiles(fakes) == 1
    assert "[bwpolicy]" not in r["output"]
    env.cleanup()


def test_concurrent_stale_recompiles_once(plugin, fakes, tmp_path, monkeypatch):
    _, env = make(plugin, tmp_path)
    monkeypatch.setenv("FAKE_STALE_BELOW", "2")
    monkeypatch.setenv("FAKE_COMPILE_DELAY", "0.5")
    results = []
    sb = env._sandbox
    threads = [threading.Thread(target=lambda: results.append(sb.run(["/bin/echo", "ok"]))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [plugin.process.run_to_end(h)[1] for h in results] == [0, 0, 0]
    assert compiles(fakes) == 2  # the first compile and ONE recompile
    env.cleanup()


def test_warnings_once(plugin, fakes, tmp_path, monkeypatch):
    """bwrun prints its warnings on stderr (part of the output); the
    plugin does not repeat them."""
    _, env = make(plugin, tmp_path)
    monkeypatch.setenv("FAKE_WARNINGS", json.dumps(["created .git/hooks: review it"]))
    r = env.execute("echo out")
    assert r["output"].count("created .git/hooks") == 1 and "out" in r["output"], r
    env.cleanup()


def test_refusal_raises_with_diagnostics(plugin, fakes, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_REFUSE", "1")
    provider = plugin.register(Ctx())
    with pytest.raises(plugin.sandbox.CompileRefused, match=r"config.yaml:3:5: error: .*\[R5\]"):
        provider.create_environment(cwd="/", timeout=10, task_id="x")
    assert runs(fakes) == []
    assert not os.listdir(tmp_path / "hermes" / "sandboxes")


@pytest.mark.parametrize("mode", ["warn", "fail"])
def test_degraded_warn_never_runs(plugin, fakes, tmp_path, monkeypatch, mode):
    """bwrap missing: whatever degraded_mode says, create_environment
    raises (Hermes reports the backend unavailable) and no command runs,
    never unsandboxed."""
    monkeypatch.setenv("FAKE_NO_BWRAP", "1")
    monkeypatch.setenv("FAKE_DEGRADED_MODE", mode)
    provider = plugin.register(Ctx())
    with pytest.raises(plugin.sandbox.SandboxUnavailable, match="bwrap was not found"):
        provider.create_environment(cwd=str(tmp_path), timeout=10, task_id="x")
    assert runs(fakes) == []
    assert not os.listdir(tmp_path / "hermes" / "sandboxes")


def test_degraded_fail_raises(plugin, fakes, tmp_path, monkeypatch):
    """The sandbox probe failing (bwrap present, no sandbox starts):
    create_environment raises with the reason; the probe is the only run."""
    monkeypatch.setenv("FAKE_STATUS", "none")
    provider = plugin.register(Ctx())
    with pytest.raises(plugin.sandbox.SandboxUnavailable, match="no command will run: the sandbox probe failed"):
        provider.create_environment(cwd=str(tmp_path), timeout=10, task_id="x")
    assert [r["cmd"] for r in runs(fakes)] == [["/bin/true"]]
    assert not os.listdir(tmp_path / "hermes" / "sandboxes")


def test_cleanup_leaves_nothing(plugin, fakes, tmp_path):
    _, env = make(plugin, tmp_path)
    env.execute("true")
    sb = env._sandbox
    for d in (sb.state_dir, sb.private_dir):
        assert os.path.isdir(d)
    env.cleanup()
    for d in (sb.state_dir, sb.private_dir, sb.scratch_dir):
        assert not os.path.exists(d)


def test_a_bwrun_that_cannot_start_is_125_and_runs_nothing(plugin, fakes, tmp_path):
    """bwrun missing when the command starts (removed since the
    environment was created): returncode 125, one line, nothing ran."""
    _, env = make(plugin, tmp_path)
    n = len(runs(fakes))
    env._sandbox.bwrun = str(tmp_path / "gone" / "bwrun")
    r = env.execute("echo should-not-run")
    assert r["returncode"] == 125 and r["exit_code"] == 125, r
    assert "should-not-run" not in r["output"].replace("echo should-not-run", "")
    assert r["output"].count("bwrun could not be started") == 1, r
    assert len(runs(fakes)) == n
    env._sandbox.bwrun = None  # cleanup needs nothing of it
    env.cleanup()


def test_a_failure_while_starting_bwrun_is_125_not_an_exception(plugin, fakes, tmp_path, monkeypatch):
    """Anything that goes wrong while the handle starts bwrun (here the
    argv cannot be built) is the command's 125 with one line, as a
    failure in the supervisor is: never an exception out of _run_bash,
    never a run."""
    _, env = make(plugin, tmp_path)
    n = len(runs(fakes))

    def broken(*a, **k):
        raise RuntimeError("argv broke")
    monkeypatch.setattr(env._sandbox, "argv", broken)
    r = env.execute("echo should-not-run")
    assert r["returncode"] == 125, r
    assert r["output"].count("argv broke") == 1, r
    assert len(runs(fakes)) == n
    env.cleanup()


# -- timeouts and the kill ------------------------------------------------------------

def test_kill_waits_for_bwrun_then_taints(plugin, fakes, tmp_path, monkeypatch):
    """Hermes' deadline passes while bwrun still runs its checks (here:
    ignores SIGTERM for 30 s): the plugin waits KILL_GRACE, kills bwrun,
    and taints the sandbox; the next command is refused and nothing is
    recompiled. Hermes' backstop never kills bwrun's tree itself (the
    handle has no pid)."""
    monkeypatch.setattr(plugin.process, "NATURAL_END", 0.2)
    monkeypatch.setattr(plugin.process, "KILL_GRACE", 1.0)
    _, env = make(plugin, tmp_path)
    monkeypatch.setenv("FAKE_IGNORE_TERM", "30")
    if plugin.hermes:
        del plugin.hermes.base.BACKSTOP_KILLS[:]
        r = env.execute("echo started", timeout=1)
        assert plugin.hermes.base.BACKSTOP_KILLS == []
    else:
        r = env.execute("echo started", timeout=1)
    assert r["returncode"] != 0, r
    assert r["output"].count("this environment runs no more commands") == 1, r
    assert env._sandbox.tainted and "after SIGTERM" in env._sandbox.tainted
    assert os.path.exists(os.path.join(env._sandbox.private_dir, "tainted"))
    monkeypatch.delenv("FAKE_IGNORE_TERM")
    n = len(runs(fakes))
    marker = tmp_path / "ran"
    r = env.execute("touch %s" % marker)
    assert r["returncode"] == 125 and "not run: an earlier command" in r["output"], r
    assert not marker.exists() and len(runs(fakes)) == n and compiles(fakes) == 1
    env.cleanup()


def test_kill_with_a_journaling_bwrun_leaves_the_scan_pending(plugin, fakes, tmp_path, monkeypatch):
    """A bwrun that journals its post-command scan (the ledger file beside
    the invocation) leaves the scan pending when killed, and its next run
    finishes it first: the environment is not tainted, one line says so.
    The same kill without the ledger file taints (the test above)."""
    monkeypatch.setattr(plugin.process, "NATURAL_END", 0.2)
    monkeypatch.setattr(plugin.process, "KILL_GRACE", 1.0)
    _, env = make(plugin, tmp_path)
    open(env._sandbox.invocation_path + plugin.sandbox.LEDGER_SUFFIX, "w").close()
    monkeypatch.setenv("FAKE_IGNORE_TERM", "30")
    r = env.execute("echo started", timeout=1)
    assert env._sandbox.tainted is None
    assert r["output"].count("its journal keeps the scan pending") == 1, r
    monkeypatch.delenv("FAKE_IGNORE_TERM")
    assert env.execute("echo ok")["returncode"] == 0
    env.cleanup()


def test_a_command_that_ends_within_the_grace_is_not_tainted(plugin, fakes, tmp_path, monkeypatch):
    monkeypatch.setattr(plugin.process, "NATURAL_END", 0.2)
    monkeypatch.setattr(plugin.process, "KILL_GRACE", 10.0)
    _, env = make(plugin, tmp_path)
    monkeypatch.setenv("FAKE_IGNORE_TERM", "2")  # bwrun's "checks" take 2 s after the command
    env.execute("true", timeout=1)
    assert env._sandbox.tainted is None
    monkeypatch.delenv("FAKE_IGNORE_TERM")
    assert env.execute("echo ok")["returncode"] == 0
    env.cleanup()


def test_run_to_end_past_its_wait_still_reads_a_long_proven_output(fakes, tmp_path, monkeypatch):
    """run_to_end's wait expires while bwrun still runs its checks (here:
    ignores SIGTERM for 2 s after the command): the kill waits for it, the
    run is proven, and its 1 MB of output (more than a pipe holds: the
    supervisor blocks writing it until someone reads) all comes back.
    Killing on the reading thread instead would never return."""
    plugin = load_plugin("standalone")
    monkeypatch.setattr(plugin.process, "NATURAL_END", 0.2)
    monkeypatch.setattr(plugin.process, "KILL_GRACE", 10.0)
    _, env = make(plugin, tmp_path)
    monkeypatch.setenv("FAKE_IGNORE_TERM", "2")
    h = env._sandbox.run(["/bin/sh", "-c", "head -c 1000000 /dev/zero | tr '\\0' x"])
    got = []
    t = threading.Thread(target=lambda: got.append(plugin.process.run_to_end(h, 0.5)), daemon=True)
    t.start()
    t.join(20)
    assert got, "run_to_end did not return"
    out, code = got[0]
    assert code == 0 and h.status is not None and out.count("x") == 1000000, (code, h.reason, out[-300:])
    env.cleanup()


# -- the supervisors' threads (workers.py) -------------------------------------------

def test_workers_are_reused_and_never_queue_a_command_behind_another():
    """A worker that finished its job takes the next one (no new thread
    per command); jobs submitted while every worker is busy each get a
    thread at once: four jobs that wait for each other all run (one
    shared worker would never let them meet)."""
    plugin = load_plugin("standalone")
    w = plugin.workers
    seen, done = [], threading.Event()
    w.submit(lambda: (seen.append(threading.get_ident()), done.set()))
    assert done.wait(10)
    deadline = time.monotonic() + 10
    while w._idle == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    before = threading.active_count()
    done.clear()
    w.submit(lambda: (seen.append(threading.get_ident()), done.set()))
    assert done.wait(10) and seen[0] == seen[1] and threading.active_count() == before
    meet = threading.Barrier(4, timeout=10)
    met = []

    def job():
        meet.wait()
        met.append(1)
    for _ in range(4):
        w.submit(job)
    deadline = time.monotonic() + 15
    while len(met) < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(met) == 4


# -- configuration ------------------------------------------------------------------

def test_backend_config_first(plugin, fakes, tmp_path, caplog):
    hermes = tmp_path / "hermes"
    (hermes / "config.yaml").write_text(json.dumps({
        "terminal": {"backend": "bwpolicy", "home_mode": "real", "degraded_mode": "fail"},
        "plugins": {"entries": {"bwpolicy": {"settings": {"profile": "restricted"}}}}}))
    with caplog.at_level(logging.WARNING):
        _, env = make(plugin, tmp_path, backend_config={"profile": "network", "memory_mb": 512,
                                                        "env": {"allow": ["FOO"], "nope": 1}, "colour": "red"})
    cfg = json.loads((fakes / "compile-config").read_text())
    assert cfg["profile"] == "network" and cfg["memory_mb"] == 512 and cfg["env"] == {"allow": ["FOO"]}
    assert "colour" not in cfg and "nope" not in json.dumps(cfg)
    assert "terminal.backends.bwpolicy.colour: unknown key" in caplog.text
    assert "terminal.backends.bwpolicy.env.nope: unknown key" in caplog.text
    if plugin.hermes:  # Hermes' config is readable: the terminal.* keys come along, the lower source is ignored
        assert cfg["home_mode"] == "real" and cfg["degraded_mode"] == "fail"
        assert "plugins.entries.bwpolicy.settings: ignored: terminal.backends.bwpolicy is set and wins" in caplog.text
    env.cleanup()


def test_terminal_backends_read_from_the_hermes_config(plugin, fakes, tmp_path):
    hermes = tmp_path / "hermes"
    (hermes / "config.yaml").write_text(json.dumps({"terminal": {"backends": {"bwpolicy": {"profile": "workspace"}}}}))
    _, env = make(plugin, tmp_path)
    assert json.loads((fakes / "compile-config").read_text()) == {"profile": "workspace"}
    env.cleanup()


def test_lower_sources_are_bwpolicys_to_read(plugin, fakes, tmp_path):
    """Without terminal.backends.bwpolicy, no --config: bwpolicy compile
    reads config.yaml itself (plugins.entries.*.settings, the PR-era
    keys)."""
    _, env = make(plugin, tmp_path)
    assert "--config" not in json.loads((fakes / "compile-args").read_text().splitlines()[0])
    env.cleanup()


def test_schema_is_exactly_what_resolve_config_reads(plugin):
    from_schema = plugin.BwpolicyProvider().get_config_schema()
    resolve = plugin.backend_config.resolve_config
    for key in from_schema:
        if "." in key:
            top, sub = key.split(".", 1)
            got, warnings = resolve({top: {sub: ["x"]}})
            assert got == {top: {sub: ["x"]}} and warnings == [], key
            got, warnings = resolve({key: ["x"]})  # the dotted spelling
            assert got == {top: {sub: ["x"]}} and warnings == [], key
        else:
            got, warnings = resolve({key: 1})
            assert got == {key: 1} and warnings == [], key
    for key in ("cwd", "home_mode", "degraded_mode", "sandbox_dir", "nonsense"):
        got, warnings = resolve({key: 1})
        assert got == {} and warnings and warnings[0].startswith("terminal.backends.bwpolicy.%s: unknown key" % key)


def test_config_schema_generated_from_the_repository_schema(plugin):
    repo = os.path.join(PLUGIN_DIR, "..", "..", "schema", "settings.schema.json")
    with open(repo, "rb") as a, open(os.path.join(PLUGIN_DIR, "settings.schema.json"), "rb") as b:
        assert a.read() == b.read(), "integrations/hermes/settings.schema.json drifted: copy schema/settings.schema.json"
    s = plugin.BwpolicyProvider().get_config_schema()
    assert s["profile"]["type"] == "select" and s["profile"]["options"] == ["restricted", "workspace", "network"]
    for k in ("memory_mb", "cpu_seconds", "max_procs"):
        assert s[k]["type"] == "number" and s[k]["min"] == 0
    for k in ("binds", "hide", "env.allow", "seccomp.allow", "network.tcp_connect"):
        assert s[k]["type"] == "list", k
    schema = json.load(open(repo))
    for k, p in schema["properties"].items():
        if k in ("cwd", "home_mode", "degraded_mode", "sandbox_dir", "sandbox_id"):
            assert k not in s
        elif p.get("type") == "object":
            assert all("%s.%s" % (k, sub) in s for sub in p["properties"])
        else:
            assert k in s, k


def test_plugin_manifest():
    keys = {}
    for line in open(os.path.join(PLUGIN_DIR, "plugin.yaml")):
        if line.strip() and not line.startswith("#"):
            k, _, v = line.partition(":")
            keys[k.strip()] = v.strip()
    assert keys["name"] == "bwpolicy" and keys["kind"] == "backend" and keys["version"] and keys["description"]
    src = open(os.path.join(PLUGIN_DIR, "__init__.py")).read()
    assert "def register(ctx)" in src


@pytest.mark.parametrize("env_var,value,want", [
    ("FAKE_BWRUN_FORMAT", "bwpolicy.invocation/v2", "reads invocation format bwpolicy.invocation/v2"),
    ("FAKE_BWRUN_HELP", "usage: bwrun INVOCATION -- CMD", "lacks --status-fd, --nonce, --chdir, --timeout, --expose"),
])
def test_version_skew_is_an_error_with_the_fix(plugin, fakes, monkeypatch, caplog, env_var, value, want):
    monkeypatch.setenv(env_var, value)
    provider = plugin.register(Ctx())
    assert not provider.is_available()
    with caplog.at_level(logging.ERROR):
        assert provider.check_requirements({}) is False
    assert want in caplog.text and "same checkout" in caplog.text
    with pytest.raises(RuntimeError, match="version skew"):
        provider.create_environment(cwd="/tmp", timeout=1, task_id="x")


def test_invocation_format_skew(plugin, fakes, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_FORMAT", "bwpolicy.invocation/v9")
    provider = plugin.register(Ctx())
    with pytest.raises(plugin.sandbox.CompileRefused, match="version skew"):
        provider.create_environment(cwd=str(tmp_path), timeout=1, task_id="x")


# -- spilled results (expose) --------------------------------------------------------

def spill(tmp_path, name="call_1.txt", text="BIG RESULT\n"):
    d = tmp_path / "hermes" / "cache" / "spillover"
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_text(text)
    return d


def test_expose_a_spilled_result_the_command_names(plugin, fakes, tmp_path):
    _, env = make(plugin, tmp_path)
    d = spill(tmp_path)
    spill(tmp_path, "call_2.txt")
    r = env.execute("grep BIG %s/call_1.txt | wc -l" % d)
    assert r["returncode"] == 0 and "[bwpolicy]" not in r["output"], r
    assert runs(fakes)[-1]["opts"]["--expose-pinned"] == [str(d / "call_1.txt")]
    env.execute("cat call_1.txt")
    assert "--expose-pinned" not in runs(fakes)[-1]["opts"]
    env.execute("python3 script.py", expose=[str(d / "call_2.txt")])
    assert runs(fakes)[-1]["opts"]["--expose-pinned"] == [str(d / "call_2.txt")]
    env.execute("python3 script.py", expose=d / "call_2.txt")
    assert runs(fakes)[-1]["opts"]["--expose-pinned"] == [str(d / "call_2.txt")]
    env.cleanup()


@pytest.mark.parametrize("how,want", [
    ("dir", "a directory"),
    ("root", "a directory"),
    ("dotdot", "not a clean path"),
    ("symlink", "a symlink on the way"),
    ("symlinked-dir", "a symlink on the way"),
    ("missing", "cannot be looked at"),
    ("outside", "not below the roots"),
    ("fifo", "not a regular file"),
])
def test_expose_refuses_all_but_a_regular_file_below_the_root(plugin, fakes, tmp_path, how, want):
    _, env = make(plugin, tmp_path)
    d = spill(tmp_path)
    secret = tmp_path / "secret"
    secret.write_text("SECRET\n")
    (d / "sub").mkdir()
    target = {
        "dir": d / "sub",
        "root": d,
        "dotdot": "%s/sub/../call_1.txt" % d,
        "symlink": d / "link.txt",
        "symlinked-dir": d / "ldir" / "secret",
        "missing": d / "nope.txt",
        "outside": secret,
        "fifo": d / "fifo",
    }[how]
    os.symlink(secret, d / "link.txt")
    os.symlink(tmp_path, d / "ldir")
    os.mkfifo(d / "fifo")
    marker = tmp_path / "ran"
    for kw in ([{}] if how != "outside" else []) + [{"expose": [str(target)]}]:
        r = env.execute(": %s; touch %s" % (target if not kw else "x", marker), **kw)
        assert "--expose-pinned" not in runs(fakes)[-1]["opts"], (how, kw)
        note = [l for l in r["output"].splitlines() if l.startswith("[bwpolicy] not shown to the command:")]
        assert len(note) == 1 and want in note[0], (how, kw, r)
        assert marker.exists()
        marker.unlink()
    env.cleanup()


def test_expose_bounds(plugin, fakes, tmp_path):
    _, env = make(plugin, tmp_path)
    d = spill(tmp_path)
    for i in range(40):
        (d / ("r%d.txt" % i)).write_text("x")
    cmd = " ".join("%s/r%d.txt" % (d, i) for i in range(40))
    r = env.execute("echo " + cmd)
    assert len(runs(fakes)[-1]["opts"]["--expose-pinned"]) == plugin.expose.MAX_EXPOSE
    notes = [l for l in r["output"].splitlines() if l.startswith("[bwpolicy] not shown")]
    assert len(notes) == plugin.expose.MAX_CANDIDATES - plugin.expose.MAX_EXPOSE and "more than 16 files" in notes[0]
    env.execute("cat /x%s/r1.txt" % d)
    assert "--expose-pinned" not in runs(fakes)[-1]["opts"]
    env.cleanup()


def test_the_plugins_nonces_are_what_bwrun_accepts(plugin):
    """bwrun takes --nonce of 1-128 of [A-Za-z0-9_-] (runtime/runopts.go)
    and the status schema says so; the plugin's nonces fit."""
    import re
    schema = json.load(open(os.path.join(PLUGIN_DIR, "..", "..", "schema", "status.schema.json")))
    pattern = schema["properties"]["nonce"]["pattern"]
    assert pattern == "^[A-Za-z0-9_-]{1,128}$"
    seen = set()
    for _ in range(200):
        n = plugin.process.new_nonce()
        assert re.match(pattern, n) and len(n) >= 32 and n not in seen
        seen.add(n)


def test_cwdcheck_follows_bwruns_chdir_rules(plugin, tmp_path):
    """not_visible judges a directory as runtime/chdir.go does: hidden,
    a private mount, a replaced path, no host directory, a host path that
    leads into a hidden place; a home layout directory (a tmpfs exactly
    at HOME) shows HOME itself."""
    home = tmp_path / "home"
    (home / "proj").mkdir(parents=True)
    (home / ".ssh").mkdir()
    os.symlink(home / ".ssh", home / "proj" / "keys")
    inv = {"bwrap": {"args": ["--ro-bind", "/", "/", "--tmpfs", str(home), "--bind", str(home / "proj"), str(home / "proj"),
                              "--tmpfs", "/var/private", "--ro-bind-data", "3", "/etc/motd", "--chdir", str(home / "proj")]},
           "hidden": [str(home / ".ssh")], "home": {"dirs": [str(home)]}}
    nv = plugin.cwdcheck.not_visible
    assert nv(inv, str(home / "proj")) is None
    assert nv(inv, str(home)) is None
    assert nv(inv, "/usr") is None
    assert nv(inv, str(home / ".ssh")) == "the sandbox hides it"
    assert "private /var/private" in nv(inv, "/var/private/x")
    assert "private %s" % home in nv(inv, str(home / "other"))
    assert "replaces /etc/motd" in nv(inv, "/etc/motd")
    assert nv(inv, str(home / "proj" / "nope")) == "no such directory on the host"
    assert "which the sandbox hides" in nv(inv, str(home / "proj" / "keys"))
    assert nv(inv, "relative") == "not an absolute path"
    assert nv(inv, "/usr/../etc") == "not a clean path"
    assert "cannot follow" in nv({"bwrap": {"args": ["--bogus", "x"]}}, "/usr")
