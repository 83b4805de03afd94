"""Unit tests of the plugin against a fake bwpolicy and bwrun
(tests/fakes: no sandbox) and the Hermes stand-ins: the provider
contract, stale → one recompile decided by the status channel, the
lock, warnings, degraded mode, cleanup, version skew, the config
schema."""

import json
import os
import threading

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


def test_register_and_contract(plugin, fakes):
    ctx = Ctx()
    provider = plugin.register(ctx)
    assert ctx.providers == [provider]
    assert ctx.sections and "read_file" in ctx.sections[0][1] and "on the host" in ctx.sections[0][1]
    assert provider.name == "bwpolicy" and provider.display_name and provider.description
    assert provider.is_remote is False and provider.is_container is False and provider.skip_container_guards is False
    assert provider.is_available()
    assert provider.check_requirements({})[0] is True
    assert provider.probe() == {"ok": True, "detail": "bwrap 0.8.0: sandbox probe passed"}
    rows = provider.doctor_checks()
    assert {r["name"] for r in rows} == {"bwrap", "landlock"} and rows[1]["fix"] == "newer kernel"
    assert "hermes config set terminal.backend bwpolicy" in provider.setup_instructions()
    if plugin.variant == "hermes-local":
        import agent.terminal_env_provider as tep
        assert isinstance(provider, tep.TerminalEnvironmentProvider)


def test_create_accepts_unknown_kwargs_and_runs(plugin, fakes, tmp_path):
    provider, env = make(plugin, tmp_path, image="ignored", container_config={}, some_future_key=1)
    if plugin.variant == "hermes-local":
        from tools.environments.local import LocalEnvironment
        assert isinstance(env, LocalEnvironment)
    r = env.execute("echo hello; exit 3")
    assert r["exit_code"] == 3 and "hello" in r["output"]
    compile_args = json.loads((fakes / "compile-args").read_text().splitlines()[0])
    assert compile_args[:3] == ["compile", "--sandbox-id", compile_args[2]] and compile_args[2].startswith("t-1-")
    last = runs(fakes)[-1]
    assert last["opts"]["--timeout"] == "30" and last["opts"]["--chdir"] == str(tmp_path / "proj")
    assert last["opts"]["--status-file"].startswith(str(tmp_path / "hermes" / "sandboxes" / "bwpolicy-"))
    env.execute("true", timeout=7)
    assert runs(fakes)[-1]["opts"]["--timeout"] == "7"
    env.cleanup()


def test_cd_persists(plugin, fakes, tmp_path):
    _, env = make(plugin, tmp_path)
    (tmp_path / "proj" / "sub").mkdir()
    env.execute("cd sub")
    r = env.execute("pwd")
    assert r["output"].strip().endswith("/proj/sub"), r
    assert runs(fakes)[-1]["opts"]["--chdir"].endswith("/proj/sub")
    env.cleanup()


def test_stale_recompiles_once_and_reruns(plugin, fakes, tmp_path, monkeypatch):
    _, env = make(plugin, tmp_path)
    assert compiles(fakes) == 1
    monkeypatch.setenv("FAKE_STALE_BELOW", "2")
    r = env.execute("echo ran")
    assert r["exit_code"] == 0 and r["output"].strip() == "ran", r
    assert compiles(fakes) == 2
    # still stale after the recompile: reported, never a loop
    monkeypatch.setenv("FAKE_STALE_BELOW", "100")
    r = env.execute("echo ran")
    assert r["exit_code"] == 125 and "still stale after recompiling once" in r["output"]
    assert compiles(fakes) == 3
    env.cleanup()


def test_spoofed_125_does_not_recompile(plugin, fakes, tmp_path):
    _, env = make(plugin, tmp_path)
    r = env.execute("echo 'bwrun: stale invocation: recompile' >&2; exit 125")
    assert r["exit_code"] == 125
    assert compiles(fakes) == 1
    assert "[bwpolicy] the sandbox is still stale" not in r["output"]
    env.cleanup()


def test_concurrent_stale_recompiles_once(plugin, fakes, tmp_path, monkeypatch):
    _, env = make(plugin, tmp_path)
    monkeypatch.setenv("FAKE_STALE_BELOW", "2")
    monkeypatch.setenv("FAKE_COMPILE_DELAY", "0.5")
    results = []
    threads = [threading.Thread(target=lambda: results.append(env.execute("echo ok"))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r["exit_code"] for r in results] == [0, 0, 0], results
    assert compiles(fakes) == 2  # the first compile and ONE recompile
    env.cleanup()


def test_warnings_and_set_aside_one_line_each(plugin, fakes, tmp_path, monkeypatch):
    _, env = make(plugin, tmp_path)
    monkeypatch.setenv("FAKE_WARNINGS", json.dumps(["created .git/hooks,\nwhich runs outside the sandbox later: review it"]))
    monkeypatch.setenv("FAKE_SET_ASIDE", json.dumps([{"path": "/p/.git/hooks/pre-commit", "to": "/p/.git/hooks/pre-commit.bwpolicy-set-aside"}]))
    r = env.execute("echo out")
    lines = r["output"].splitlines()
    assert lines[0] == "out"
    assert lines[1] == "[bwpolicy] set aside: /p/.git/hooks/pre-commit → /p/.git/hooks/pre-commit.bwpolicy-set-aside"
    assert lines[2] == "[bwpolicy] warning: created .git/hooks, which runs outside the sandbox later: review it"
    env.cleanup()


def test_refusal_raises_with_diagnostics(plugin, fakes, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_REFUSE", "1")
    provider = plugin.register(Ctx())
    with pytest.raises(plugin.sandbox.CompileRefused, match=r"config.yaml:3:5: error: .*\[R5\]"):
        provider.create_environment(cwd="/", timeout=10, task_id="x")
    assert runs(fakes) == []
    assert not os.listdir(tmp_path / "hermes" / "sandboxes")


def test_degraded_warn_never_runs(plugin, fakes, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_NO_BWRAP", "1")
    _, env = make(plugin, tmp_path)
    marker = tmp_path / "ran"
    r = env.execute("touch %s" % marker)
    assert r["exit_code"] == 125 and "sandbox unavailable" in r["output"] and "apt install bubblewrap" in r["output"]
    assert not marker.exists()
    env.cleanup()


def test_degraded_fail_raises(plugin, fakes, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_NO_BWRAP", "1")
    monkeypatch.setenv("FAKE_DEGRADED_MODE", "fail")
    provider = plugin.register(Ctx())
    with pytest.raises(plugin.sandbox.SandboxUnavailable, match="degraded_mode: fail"):
        provider.create_environment(cwd=str(tmp_path), timeout=10, task_id="x")
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


@pytest.mark.parametrize("env_var,value,want", [
    ("FAKE_BWRUN_FORMAT", "bwpolicy.invocation/v2", "reads invocation format bwpolicy.invocation/v2"),
    ("FAKE_BWRUN_HELP", "usage: bwrun INVOCATION -- CMD", "lacks --status-file, --chdir, --timeout, --expose"),
])
def test_version_skew_is_an_error_with_the_fix(plugin, fakes, monkeypatch, env_var, value, want):
    monkeypatch.setenv(env_var, value)
    provider = plugin.register(Ctx())
    assert not provider.is_available()
    ok, msg = provider.check_requirements({})
    assert not ok and want in msg and "same checkout" in msg
    with pytest.raises(RuntimeError, match="version skew"):
        provider.create_environment(cwd="/tmp", timeout=1, task_id="x")


def test_invocation_format_skew(plugin, fakes, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_FORMAT", "bwpolicy.invocation/v9")
    provider = plugin.register(Ctx())
    with pytest.raises(plugin.sandbox.CompileRefused, match="version skew"):
        provider.create_environment(cwd=str(tmp_path), timeout=1, task_id="x")


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
    assert r["exit_code"] == 0 and "[bwpolicy]" not in r["output"], r
    assert runs(fakes)[-1]["opts"]["--expose"] == [str(d / "call_1.txt")]  # that one file, not its sibling
    # the next command, naming nothing, gets nothing
    env.execute("cat call_1.txt")
    assert "--expose" not in runs(fakes)[-1]["opts"]
    # explicit, as a keyword (Hermes' execute_code scripts name no path in the command)
    env.execute("python3 script.py", expose=[str(d / "call_2.txt")])
    assert runs(fakes)[-1]["opts"]["--expose"] == [str(d / "call_2.txt")]
    env.execute("python3 script.py", expose=d / "call_2.txt")  # one path, a pathlib.Path
    assert runs(fakes)[-1]["opts"]["--expose"] == [str(d / "call_2.txt")]
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
    # named in the command (a path outside the roots is no mention), then passed explicitly
    for kw in ([{}] if how != "outside" else []) + [{"expose": [str(target)]}]:
        r = env.execute(": %s; touch %s" % (target if not kw else "x", marker), **kw)
        assert "--expose" not in runs(fakes)[-1]["opts"], (how, kw)
        note = [l for l in r["output"].splitlines() if l.startswith("[bwpolicy] not shown to the command:")]
        assert len(note) == 1 and want in note[0], (how, kw, r)
        # the command still ran, in the sandbox, without the file
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
    assert len(runs(fakes)[-1]["opts"]["--expose"]) == plugin.expose.MAX_EXPOSE
    notes = [l for l in r["output"].splitlines() if l.startswith("[bwpolicy] not shown")]
    assert len(notes) == plugin.expose.MAX_CANDIDATES - plugin.expose.MAX_EXPOSE and "more than 16 files" in notes[0]
    # a mention in the middle of a longer path is not one
    env.execute("cat /x%s/r1.txt" % d)
    assert "--expose" not in runs(fakes)[-1]["opts"]
    env.cleanup()
