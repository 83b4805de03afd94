"""A model of how Hermes Agent routes work to a terminal backend, written
for these tests from reading NousResearch/hermes-agent (not copied):

- create_environment: tools/terminal_tool_backends.py,
  _create_environment → _build_plugin_env: a backend name that is not a
  built-in goes to the registered provider's
  create_environment(cwd=, timeout=, task_id=, image=,
  container_config=); the result is stamped _hermes_backend_name and
  env_type.
- background: tools/terminal_tool.py, terminal(background=True):
  `if env_type == "local": process_registry.spawn_local(...)` (a host
  Popen of the user's shell, never through the environment) `else:
  process_registry.spawn_via_env(env, ...)`; tools/process_registry.py,
  spawn_via_env: one env.execute of `mkdir -p TMP && ( nohup bash -lc CMD
  > LOG 2>&1; rc=$?; printf '%s\\n' "$rc" > EXIT ) & echo $! > PID && cat
  PID` (TMP = env.get_temp_dir()), timeout 10,
  rewrite_compound_background=False; later polls read LOG and EXIT
  through env.execute.
- execute_code: tools/code_execution_tool.py, execute_code: `if env_type
  != "local": return _execute_remote(...)`, else a host Popen of Python;
  _execute_remote: `command -v python3` (cwd "/"), mkdir the RPC
  directory under env.get_temp_dir(), _ship_file_to_remote (`echo B64 |
  base64 -d > PATH`, cwd "/") for hermes_tools.py and script.py, then
  `cd DIR && ... python3 script.py`, then `rm -rf DIR`.
- file tools: tools/file_operations.py, ShellFileOperations: every
  operation is a shell command through env.execute(command,
  cwd=env.cwd, stdin_data=...); reads `cat PATH 2>/dev/null`, writes the
  content through stdin_data.

ROUTES records which route each call took."""

import base64
import os
import shlex
import subprocess
import uuid

ROUTES = []


def create_environment(provider, env_type, *, cwd, timeout, task_id="default"):
    env = provider.create_environment(cwd=cwd, timeout=timeout, task_id=task_id, image="", container_config={})
    try:
        env._hermes_backend_name = provider.name.strip().lower()
        env.env_type = env_type
    except AttributeError:
        pass
    return env


def background(env_type, env, command, cwd):
    """terminal(background=True): returns (route, pid or process, paths)."""
    if env_type == "local":
        ROUTES.append("spawn_local")
        proc = subprocess.Popen(["/bin/bash", "-lc", command], cwd=cwd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        return "spawn_local", proc, None
    ROUTES.append("spawn_via_env")
    sid = "proc_%s" % uuid.uuid4().hex[:12]
    tmp = env.get_temp_dir()
    log, pid, ex = ("%s/hermes_bg_%s.%s" % (tmp, sid, s) for s in ("log", "pid", "exit"))
    q = shlex.quote
    bg = ("mkdir -p %s && ( nohup bash -lc %s > %s 2>&1; rc=$?; printf '%%s\\n' \"$rc\" > %s ) & "
          "echo $! > %s && cat %s" % (q(tmp), q(command), q(log), q(ex), q(pid), q(pid)))
    result = env.execute(bg, timeout=10, rewrite_compound_background=False)
    return "spawn_via_env", result, {"log": log, "exit": ex}


def poll_background(env, paths):
    """process(action="poll") for a spawn_via_env session."""
    return env.execute("cat %s 2>/dev/null; echo; cat %s 2>/dev/null" % (shlex.quote(paths["log"]), shlex.quote(paths["exit"])),
                       timeout=10)


def execute_code(env_type, env, code):
    """execute_code(code): (route, result)."""
    if env_type == "local":
        ROUTES.append("execute_code_local")
        r = subprocess.run(["python3", "-c", code], capture_output=True, text=True, timeout=60)
        return "local", {"output": r.stdout + r.stderr, "returncode": r.returncode}
    ROUTES.append("execute_code_remote")
    check = env.execute("command -v python3 >/dev/null 2>&1 && echo OK", cwd="/", timeout=15)
    if "OK" not in check.get("output", ""):
        return "remote", {"output": "python3 not available: %r" % check, "returncode": -1}
    d = "%s/hermes_exec_%s" % (env.get_temp_dir(), uuid.uuid4().hex[:12])
    env.execute("mkdir -p %s" % shlex.quote(d + "/rpc"), cwd="/", timeout=10)
    for name, text in (("hermes_tools.py", "# rpc stubs\n"), ("script.py", code)):
        enc = base64.b64encode(text.encode()).decode()
        env.execute("echo '%s' | base64 -d > %s" % (enc, shlex.quote(d + "/" + name)), cwd="/", timeout=30)
    try:
        return "remote", env.execute("cd %s && HERMES_RPC_DIR=%s python3 script.py" % (shlex.quote(d), shlex.quote(d + "/rpc")),
                                     timeout=60)
    finally:
        env.execute("rm -rf %s" % shlex.quote(d), cwd="/", timeout=15)


def write_file(env, path, content):
    """ShellFileOperations.write_file: mkdir -p the parent, content via stdin."""
    q = shlex.quote
    return env.execute("mkdir -p %s && cat > %s" % (q(os.path.dirname(path)), q(path)), cwd=env.cwd, stdin_data=content)


def read_file(env, path):
    """ShellFileOperations' raw read."""
    return env.execute("cat %s 2>/dev/null" % shlex.quote(path), cwd=env.cwd)
