package sandboxtest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// S1: RLIMIT_AS. A 320 MiB allocation fails under memory_mb 256 while a
// 64 MiB one works in the same sandbox; without the limit the 320 MiB one
// works too, so the limit (not the machine) stopped it.
func testMemoryLimit(t *testing.T, f *fixture) {
	r := f.sandbox("memory_mb: 256\n", `
val vmem 'ulimit -v'
val small '{bin}/alloc 64'
ok big '{bin}/alloc 320'
ok after 'true'
`, call{})
	f.expect(r, want{"vmem": "262144", "small": "allocated 64 MiB", "big": "no", "after": "yes"})

	r = f.sandbox("memory_mb: 0\n", `
val vmem 'ulimit -v'
val big '{bin}/alloc 320'
`, call{})
	f.expect(r, want{"vmem": "unlimited", "big": "allocated 320 MiB"})
}

// S1: RLIMIT_CPU. Under cpu_seconds 1 a short command works and a busy
// loop is killed (SIGKILL at the hard limit, or SIGXCPU) within seconds.
func testCPULimit(t *testing.T, f *fixture) {
	inv, _ := f.compile("cpu_seconds: 1\n", call{})
	r := f.bwrun(inv, `
val cpu 'ulimit -t'
ok short 'true'
`, call{})
	f.expect(r, want{"cpu": "1", "short": "yes"})

	r = f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/sh", "-c", "while :; do :; done"}, timeout: 40 * time.Second})
	if r.code != 128+int(syscall.SIGKILL) && r.code != 128+int(syscall.SIGXCPU) {
		t.Errorf("busy loop under cpu_seconds 1: exit %d, want %d (SIGKILL) or %d (SIGXCPU): %v",
			r.code, 128+int(syscall.SIGKILL), 128+int(syscall.SIGXCPU), r)
	}
	if r.elapsed > 20*time.Second {
		t.Errorf("busy loop under cpu_seconds 1 ran %v, want a few seconds", r.elapsed)
	}
	t.Logf("busy loop killed after %v (exit %d)", r.elapsed.Round(time.Millisecond), r.code)
}

// S1: RLIMIT_NPROC inside the sandbox's user namespace. With max_procs 10
// a shell starting 30 background sleeps fails after about 10, although
// the same user already runs 15 processes on the host (they do not
// count); afterwards the host user still starts 30 processes.
func testProcessLimit(t *testing.T, f *fixture) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var hosts []*os.Process
	defer func() {
		for _, p := range hosts {
			p.Kill()
			p.Wait()
		}
	}()
	for range 15 {
		cmd, _, _ := f.command(ctx, call{argv: []string{"/bin/sleep", "30"}})
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		hosts = append(hosts, cmd.Process)
	}

	inv, warnings := f.compile("max_procs: 10\n", call{})
	r := f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/sh", "-c",
		`i=0; while [ $i -lt 30 ]; do sleep 5 & echo started; i=$((i+1)); done; echo all-started`}})
	started := strings.Count(r.stdout, "started\n") - strings.Count(r.stdout, "all-started\n")
	t.Logf("max_procs 10: %d of 30 background processes started (exit %d)", started, r.code)
	switch {
	case started >= 8 && started <= 10 && !strings.Contains(r.stdout, "all-started") && r.code != 0:
		// enforced
	case f.id.uid == 0 && mentionsNProc(warnings+r.stderr):
		// The kernel never applies RLIMIT_NPROC to uid 0 (INIT_USER is
		// exempt in copy_process), so as root the limit is unenforceable;
		// docs/protections.md, S1, allows skipping it with one warning.
		t.Logf("root: max_procs not enforced, with a warning: %s", strings.TrimSpace(warnings+r.stderr))
	case f.id.uid == 0:
		t.Errorf("max_procs 10 as root: %d of 30 background processes started and nothing warned that the limit "+
			"does not hold (the kernel exempts uid 0 from RLIMIT_NPROC): %v\ncompile warnings: %q", started, r, warnings)
	default:
		t.Errorf("max_procs 10: %d background processes started, want 8..10 and the shell to fail: %v", started, r)
	}

	r = f.exec(call{argv: []string{"/bin/sh", "-c",
		`i=0; while [ $i -lt 30 ]; do sleep 1 & i=$((i+1)); done; wait; echo host-ok`}})
	if r.code != 0 || !strings.Contains(r.stdout, "host-ok") {
		t.Errorf("the host user cannot start 30 processes after the sandbox: %v", r)
	}
}

// mentionsNProc reports whether a warning says max_procs/RLIMIT_NPROC is
// not enforced.
func mentionsNProc(s string) bool {
	return strings.Contains(s, "warning") && (strings.Contains(s, "max_procs") || strings.Contains(s, "RLIMIT_NPROC"))
}

// S2: the workspace profile has its own network namespace: a listener on
// the host's 127.0.0.1 is unreachable (raw TCP and curl), and so is a
// host abstract Unix socket (the X11 kind); only lo exists; a listener
// started inside on its loopback works.
func testNetworkNone(t *testing.T, f *fixture) {
	addr := hostListener(t)
	abstract := hostAbstractListener(t, f.tag)
	r := f.sandbox("profile: workspace\nmemory_mb: 0\n", strings.NewReplacer("ADDR", addr, "ABSTRACT", abstract).Replace(`
val host_tcp '{bin}/sbxtool connect ADDR'
ok host_http 'curl -sS --max-time 3 http://ADDR/'
val host_abstract '{bin}/sbxtool connect-unix ABSTRACT'
val loopback '{bin}/sbxtool loopback'
val ifaces 'tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "'
`), call{})
	f.expect(r, want{"host_tcp": "~connect failed", "host_http": "no", "host_abstract": "~connect failed",
		"loopback": "loopback ok", "ifaces": "lo"})
	// The listeners themselves work: from the host as the same identity
	// (and the TCP one from a sandbox that shares the network,
	// S2_network_shared_network).
	if r := f.exec(call{argv: []string{tool("sbxtool"), "connect", addr}}); r.code != 0 || r.stdout != "connected: HTTP/1.0 200 OK\n" {
		t.Errorf("the host cannot reach its own TCP listener: %v", r)
	}
	if r := f.exec(call{argv: []string{tool("sbxtool"), "connect-unix", abstract}}); r.code != 0 || r.stdout != "connected: host-abstract\n" {
		t.Errorf("the host cannot reach its own abstract socket: %v", r)
	}
}

// S2: the network profile shares the host network: the host listener on
// 127.0.0.1 answers (raw TCP and curl).
func testNetworkShared(t *testing.T, f *fixture) {
	addr := hostListener(t)
	r := f.sandbox("profile: network\nmemory_mb: 0\n", strings.ReplaceAll(`
val host_tcp '{bin}/sbxtool connect ADDR'
val host_http 'curl -sS --max-time 3 http://ADDR/'
val loopback '{bin}/sbxtool loopback'
`, "ADDR", addr), call{})
	f.expect(r, want{"host_tcp": "connected: HTTP/1.0 200 OK", "host_http": "host-listener", "loopback": "loopback ok"})
}

// S2: private pid and IPC namespaces: only the sandbox's own few
// processes are visible (small pids: bwrap's init, the shell, the probe
// pipeline), and none of the host's System V shared memory (the sandbox
// can make its own); a host process of the same user can be neither seen nor
// signalled (and is alive afterwards), while the sandbox signals itself.
func testHostProcesses(t *testing.T, f *fixture) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	host, _, _ := f.command(ctx, call{argv: []string{"/bin/sleep", "60"}})
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { host.Process.Kill(); host.Wait() }()
	pid := host.Process.Pid
	// A System V shared memory segment of the same user on the host.
	shm := f.exec(call{argv: []string{"ipcmk", "-M", "4096"}})
	shmID := strings.TrimSpace(strings.TrimPrefix(shm.stdout, "Shared memory id:"))
	if shm.code != 0 || shmID == "" {
		t.Fatalf("ipcmk: %v", shm)
	}
	defer f.exec(call{argv: []string{"ipcrm", "-m", shmID}})
	if r := f.exec(call{argv: []string{"ipcs", "-m", "-i", shmID}}); !strings.Contains(r.stdout, "shmid="+shmID+"\n") {
		t.Errorf("the host user cannot see its own segment: %v", r)
	}
	r := f.sandbox("", strings.NewReplacer("HOSTPID", strconv.Itoa(pid), "SHMID", shmID).Replace(`
val pids 'ls /proc | grep "^[0-9][0-9]*$" | sort -n | tr "\n" " "'
ok see_host 'test -e /proc/HOSTPID'
ok signal0_host 'kill -0 HOSTPID'
ok term_host 'kill -TERM HOSTPID'
ok kill_host 'kill -KILL HOSTPID'
ok signal_self 'kill -0 $$'
val ps 'ps -e -o comm= | sort -u | tr "\n" " "'
ok host_shm 'ipcs -m -i SHMID | grep -q "shmid=SHMID\$"'
val shm_count 'ipcs -m | grep -c "^0x"'
ok own_shm 'ipcmk -M 4096'
`), call{})
	w := want{"signal0_host": "no", "term_host": "no", "kill_host": "no", "signal_self": "yes", "ps": "!~sleep",
		"host_shm": "no", "shm_count": "0", "own_shm": "yes"}
	if pid > 50 { // pids inside the sandbox are small
		w["see_host"] = "no"
	}
	f.expect(r, w)
	pids := strings.Fields(probes(r.stdout)["pids"])
	if len(pids) == 0 || len(pids) > 20 {
		t.Errorf("the sandbox sees %d processes %q, want its own few", len(pids), pids)
	}
	for _, p := range pids {
		if n, _ := strconv.Atoi(p); n > 50 {
			t.Errorf("the sandbox sees pid %d: not its own", n)
		}
	}
	if err := host.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the host process died: %v", err)
	}
}

// sleepArg returns an argument for sleep that is unique machine-wide, to
// find the processes on the host.
func (f *fixture) sleepArg() string {
	n, _ := strconv.ParseUint(f.tag, 16, 64)
	return fmt.Sprintf("97.%08d", n%100000000)
}

// S2/S11: --die-with-parent: when the runtime is killed (SIGKILL, no
// chance to clean up), every process of the sandbox dies with it.
func testDiesWithParent(t *testing.T, f *fixture) {
	inv, _ := f.compile("", call{})
	arg := f.sleepArg()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd, _, _ := f.command(ctx, call{argv: []string{tool("bwrun"), inv, "--", "/bin/sh", "-c", "sleep " + arg + " & sleep " + arg}})
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(10*time.Second, func() bool { return len(hostProcsWithArg(arg)) == 2 }) {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the sandboxed sleeps did not start: %v", hostProcsWithArg(arg))
	}
	cmd.Process.Kill()
	cmd.Wait()
	if !waitFor(5*time.Second, func() bool { return len(hostProcsWithArg(arg)) == 0 }) {
		pids := hostProcsWithArg(arg)
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
		t.Errorf("the sandbox's processes %v outlived the killed runtime", pids)
	}
}

// S3, S9 (and S6 scratch): the working directory is the only writable
// host directory; the host root, the home directory and everything else
// is read-only (a cd changes nothing); /tmp is a private tmpfs; TMPDIR is
// the sandbox's /tmp (compiled without a sandbox ID, no scratch is this
// invocation's own: S6_scratch_not_shared); /dev is minimal (no block
// devices, no kmsg, a private /dev/shm).
func testWrites(t *testing.T, f *fixture) {
	hostShm := f.expand("/dev/shm/sbx-{tag}")
	if err := os.WriteFile(hostShm, []byte("host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(hostShm)
	r := f.sandbox("", `
ok cwd_write 'echo written > {proj}/written.txt'
ok cwd_subdir 'mkdir -p {proj}/newdir && echo n > {proj}/newdir/f'
ok cwd_rename 'mv {proj}/README {proj}/README.md'
ok home_write 'echo x > {home}/outside.txt'
ok home_append 'echo x >> {home}/notes/todo'
ok home_rm 'rm -f {home}/.bashrc'
ok base_write 'echo x > {base}/outside.txt'
ok bind_dir_write 'echo x > {base}/data/x.txt'
ok etc_write 'echo x > /etc/sbx-{tag}'
ok usr_write 'touch /usr/sbx-{tag}'
ok var_tmp_write 'touch /var/tmp/sbx-{tag}'
ok cd_home_write 'cd {home} && echo x > cd.txt'
ok tmp_write 'echo t > /tmp/sbx-{tag} && test -s /tmp/sbx-{tag}'
val tmpdir 'echo $TMPDIR'
ok tmpdir_write 'echo scratch > "$TMPDIR/scratch-{tag}"'
val pwd 'pwd'
ok dev_null 'echo x > /dev/null'
val dev_blocks 'find /dev -type b | wc -l'
ok dev_kmsg 'test -e /dev/kmsg'
ok host_dev_shm 'test -e /dev/shm/sbx-{tag}'
ok dev_shm_write 'echo s > /dev/shm/own-{tag}'
ok sysrq 'echo h > /proc/sysrq-trigger'
ok chmod_root 'chmod 777 /etc'
`, call{})
	f.expect(r, want{
		// HOME is the home layout's read-only tmpfs (H10): a new name at
		// its top fails, and never reaches the host (checked below).
		"cwd_write": "yes", "cwd_subdir": "yes", "cwd_rename": "yes",
		"home_write": "no", "home_append": "no", "home_rm": "no", "base_write": "no", "bind_dir_write": "no",
		"etc_write": "no", "usr_write": "no", "var_tmp_write": "no", "cd_home_write": "no",
		"tmp_write": "yes", "tmpdir": "/tmp", "tmpdir_write": "yes", "pwd": "{proj}",
		"dev_null": "yes", "dev_blocks": "0", "dev_kmsg": "no", "host_dev_shm": "no", "dev_shm_write": "yes", "sysrq": "no", "chmod_root": "no",
	})
	f.wantHostFile("{proj}/written.txt", "written\n")
	f.wantHostFile("{proj}/newdir/f", "n\n")
	f.wantHostFile("{proj}/README.md", "readme\n")
	f.wantHostAbsent("{scratch}/scratch-{tag}")
	f.wantHostFile("{home}/notes/todo", "todo\n")
	f.wantHostFile("{home}/.bashrc", "# bashrc\n")
	for _, p := range []string{"{home}/outside.txt", "{base}/outside.txt", "{base}/data/x.txt", "/etc/sbx-{tag}",
		"/usr/sbx-{tag}", "/var/tmp/sbx-{tag}", "{home}/cd.txt", "/tmp/sbx-{tag}", "/dev/shm/own-{tag}"} {
		f.wantHostAbsent(p)
	}
	f.wantHostCredentialsUnchanged()
}

// S3: /tmp is fresh for every command: a file one command leaves there
// is gone in the next (and never on the host), while writing works.
func testTmpFresh(t *testing.T, f *fixture) {
	inv, _ := f.compile("", call{})
	r := f.bwrun(inv, `
val before 'ls -A /tmp'
ok write 'echo keep > /tmp/keep-{tag}'
val after 'ls -A /tmp'
`, call{})
	f.expect(r, want{"before": "", "write": "yes", "after": "keep-{tag}"})
	r = f.bwrun(inv, `
val next 'ls -A /tmp'
ok kept 'test -e /tmp/keep-{tag}'
`, call{})
	f.expect(r, want{"next": "", "kept": "no"})
	f.wantHostAbsent("/tmp/keep-{tag}")
}

// S4: /run/user/<uid> is empty (its ssh/gpg agent and D-Bus sockets
// unreachable, read-only) and the docker socket is an empty regular
// file, while the rest of /run is visible. As root the scenario runs in
// a private mount namespace whose /run is a tmpfs holding those sockets
// (the real /run is never touched); the same identity outside the
// sandbox sees them.
func testAgentSockets(t *testing.T, f *fixture) {
	env := []string{
		"SSH_AUTH_SOCK=/run/user/{uid}/gnupg/S.gpg-agent.ssh",
		"GPG_AGENT_INFO=/run/user/{uid}/gnupg/S.gpg-agent:0:1",
		"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/{uid}/bus",
	}
	private := os.Getuid() == 0
	runUser := f.expand("/run/user/{uid}")
	haveRunUser, haveDocker := private, private
	if !private {
		_, err := os.Stat(runUser)
		haveRunUser = err == nil
		for _, p := range []string{"/run/docker.sock", "/var/run/docker.sock"} {
			if _, err := os.Stat(p); err == nil {
				haveDocker = true
			}
		}
		if !haveRunUser && !haveDocker {
			t.Skipf("%s and the docker socket do not exist and this is not root (root fakes them in a private mount namespace)", runUser)
		}
	}
	// Control: outside the sandbox this identity reaches the sockets.
	if private {
		r := f.exec(call{privateRun: true, env: env, argv: []string{"/bin/sh", "-c", prelude + f.expand(`
val run_user 'ls -A /run/user/{uid} | sort'
ok bus 'test -S /run/user/{uid}/bus'
ok docker 'test -S /run/docker.sock'
ok system_bus 'test -S /run/dbus/system_bus_socket'
val keyring 'cat /run/user/{uid}/keyring-token'
val ssh_sock 'echo ${SSH_AUTH_SOCK-unset}'
`)}})
		f.expect(r, want{"run_user": "bus gnupg keyring-token", "bus": "yes", "docker": "yes", "system_bus": "yes",
			"keyring": "keyring-{tag}", "ssh_sock": "/run/user/{uid}/gnupg/S.gpg-agent.ssh"})
	}
	script := `
val ssh_sock 'echo ${SSH_AUTH_SOCK-unset}'
val gpg_info 'echo ${GPG_AGENT_INFO-unset}'
val dbus 'echo ${DBUS_SESSION_BUS_ADDRESS-unset}'
`
	w := want{"ssh_sock": "unset", "gpg_info": "unset", "dbus": "unset", "sandbox_ran": "yes"}
	if haveRunUser {
		script += `
val run_user 'ls -A /run/user/{uid}'
ok bus 'test -e /run/user/{uid}/bus'
ok keyring 'cat /run/user/{uid}/keyring-token'
ok run_user_write 'touch /run/user/{uid}/planted'
ok run_user_chmod 'chmod 0777 /run/user/{uid}'
`
		w["run_user"], w["bus"], w["keyring"], w["run_user_write"], w["run_user_chmod"] = "", "no", "no", "no", "no"
	}
	if haveDocker {
		script += `
val docker_type 'stat -L -c %F /run/docker.sock'
val docker_var_type 'stat -L -c %F /var/run/docker.sock'
ok docker_sock 'test -S /run/docker.sock'
val docker_size 'wc -c < /run/docker.sock'
ok docker_api 'curl -sS --max-time 2 --unix-socket /run/docker.sock http://localhost/version'
`
		w["docker_type"], w["docker_var_type"], w["docker_sock"], w["docker_size"], w["docker_api"] =
			"regular empty file", "regular empty file", "no", "0", "no"
	}
	if private {
		// H8: the system bus is an empty file too.
		script += `
val run_ls 'ls -A /run | sort'
val system_bus_type 'stat -L -c %F /run/dbus/system_bus_socket'
val system_bus_var_type 'stat -L -c %F /var/run/dbus/system_bus_socket'
`
		w["run_ls"], w["system_bus_type"], w["system_bus_var_type"] = "dbus docker.sock user", "regular empty file", "regular empty file"
	}
	script += "ok sandbox_ran 'test -d /proc/self'\n"
	r := f.exec(call{privateRun: private, env: env,
		argv: []string{tool("bwpolicy"), "run", "--", "/bin/sh", "-c", prelude + f.expand(script)}})
	f.noMarker(r)
	f.expect(r, w)
}

// S4 and H5: the agent variables and secret-looking variables are
// removed (also when they only appear at run time, after compiling),
// env.allow keeps one, ordinary variables pass, and --explain names what
// goes without ever printing a value.
func testEnvironment(t *testing.T, f *fixture) {
	env := []string{
		"SSH_AUTH_SOCK=/run/user/{uid}/ssh-agent",
		"GPG_AGENT_INFO=/run/user/{uid}/gnupg/S.gpg-agent:0:1",
		"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/{uid}/bus",
		"OPENAI_API_KEY=sk-{marker}",
		"GITHUB_TOKEN=ghp-allowed-{tag}",
		"AWS_SECRET_ACCESS_KEY={marker}",
		"SBX_PLAIN=plain-{tag}",
	}
	secret := []string{"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS", "OPENAI_API_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY"}
	script := `
val names 'env | cut -d= -f1 | sort'
val plain 'echo $SBX_PLAIN'
val gh 'echo ${GITHUB_TOKEN-unset}'
`
	checkNames := func(r result, gone, kept []string) {
		t.Helper()
		names := map[string]bool{}
		for _, n := range strings.Fields(probes(r.stdout)["names"]) {
			names[n] = true
		}
		for _, n := range gone {
			if names[n] {
				t.Errorf("%s reached the sandbox: %v", n, r)
			}
		}
		for _, n := range kept {
			if !names[n] {
				t.Errorf("%s did not reach the sandbox: %v", n, r)
			}
		}
	}

	inv, _ := f.compile("", call{env: env})
	r := f.bwrun(inv, script, call{env: env})
	f.expect(r, want{"plain": "plain-{tag}", "gh": "unset"})
	checkNames(r, secret, []string{"SBX_PLAIN", "PATH", "HOME", "TMPDIR"})

	// Secret variables that appear only at run time are removed too.
	inv, _ = f.compile("", call{env: []string{"SBX_PLAIN=x"}})
	r = f.bwrun(inv, script, call{env: env})
	f.expect(r, want{"plain": "plain-{tag}", "gh": "unset"})
	checkNames(r, secret, []string{"SBX_PLAIN"})

	// env.allow keeps GITHUB_TOKEN (with its value), nothing else.
	inv, _ = f.compile("env:\n  allow: [GITHUB_TOKEN]\n", call{env: env})
	r = f.bwrun(inv, script, call{env: env})
	f.expect(r, want{"plain": "plain-{tag}", "gh": "ghp-allowed-{tag}"})
	checkNames(r, []string{"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS", "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY"},
		[]string{"GITHUB_TOKEN", "SBX_PLAIN"})

	// explain names the variables it removes, never their values.
	r = f.exec(call{env: env, argv: []string{tool("bwpolicy"), "compile", "--explain"}})
	f.wantCode(r, 0)
	f.noMarker(r)
	if !strings.Contains(r.stdout, "OPENAI_API_KEY") || strings.Contains(r.stdout, "ghp-allowed-") {
		t.Errorf("explain should name OPENAI_API_KEY and print no value:\n%s", r.stdout)
	}
}

// S5 (and S6): every hidden credential reads as empty: directories
// empty, files zero bytes, the symlinked .gnupg empty at its target, the
// Hermes home empty (compiled without a sandbox ID, neither the backend
// states nor the scratch are this invocation's: none is bound back);
// nothing the sandbox can read holds the marker. Ordinary dotfiles and the project stay readable. The masks
// are the denylist home layout's (home.layout: denylist); the allowlist
// layout leaves these entries out altogether (H10_denied_paths_absent).
func testHiddenCredentials(t *testing.T, f *fixture) {
	r := f.sandbox(denylist, `
ok ssh_key 'cat {home}/.ssh/id_rsa'
val ssh_ls 'ls -A {home}/.ssh'
ok aws 'cat {home}/.aws/credentials'
val aws_ls 'ls -A {home}/.aws'
val npmrc_size 'wc -c < {home}/.npmrc'
val env_size 'wc -c < {home}/.env'
val netrc_size 'wc -c < {home}/.netrc'
val pypirc_size 'wc -c < {home}/.pypirc'
val docker_ls 'ls -A {home}/.docker'
val azure_ls 'ls -A {home}/.azure'
val gpg_ls 'ls -A {home}/.gpg'
val gnupg_ls 'ls -A {home}/.gnupg/'
val gnupg_target_ls 'ls -A {home}/dotfiles/gnupg'
ok gnupg_key 'cat {home}/dotfiles/gnupg/private-keys-v1.d/key.key'
val gnupg_link 'readlink {home}/.gnupg'
val gcloud_ls 'ls -A {home}/.config/gcloud'
ok hermes_env 'cat {hermes}/.env'
ok hermes_auth 'cat {hermes}/auth.json'
val hermes_ls 'ls -A {hermes}'
val state 'cat {hermes}/sandboxes/bwrap-x/state'
ok state_write 'echo x > {hermes}/sandboxes/bwrap-x/new'
val everything 'find {home} -type f -exec cat {} + 2>/dev/null | wc -l'
val readme 'cat {proj}/README'
val bashrc 'cat {home}/.bashrc'
val app_conf 'cat {home}/.config/app.conf'
val notes 'cat {home}/notes/todo'
`, call{})
	f.expect(r, want{
		"ssh_key": "no", "ssh_ls": "", "aws": "no", "aws_ls": "", "npmrc_size": "0", "env_size": "0",
		"netrc_size": "0", "pypirc_size": "0", "docker_ls": "", "azure_ls": "", "gpg_ls": "",
		"gnupg_ls": "", "gnupg_target_ls": "", "gnupg_key": "no", "gnupg_link": "dotfiles/gnupg", "gcloud_ls": "",
		"hermes_env": "no", "hermes_auth": "no", "hermes_ls": "", "state": "~No such file or directory", "state_write": "no",
		"readme": "readme", "bashrc": "# bashrc", "app_conf": "app-config", "notes": "todo",
	})
	// A dump of every readable file under HOME: noMarker (in f.bwrun)
	// proves no credential is in it.
	r = f.sandbox(denylist, `find {home} -type f -exec cat {} + 2>/dev/null; echo dumped`, call{})
	if !strings.Contains(r.stdout, "readme") || !strings.Contains(r.stdout, "dumped") {
		t.Errorf("the dump of HOME did not run: %v", r)
	}
	f.wantHostCredentialsUnchanged()
}

// S5: writes into a hidden path never reach the host. In the denylist
// layout, outside the writable set, the masks are read-only. With cwd =
// HOME (the allowlist layout: denylist + cwd = HOME is refused, H10) the
// hidden entries are absent and creating anything in their place fails
// (the layout's tmpfs is read-only), as does a new name at the top of
// HOME or in a mask inside the writable set (~/dotfiles/gnupg); nothing
// reaches the host, and no write seems to work and then vanishes.
func testHiddenWrites(t *testing.T, f *fixture) {
	r := f.sandbox(denylist, `
ok ssh_write 'echo planted > {home}/.ssh/authorized_keys'
ok npmrc_write 'echo planted > {home}/.npmrc'
ok env_write 'echo planted >> {home}/.env'
ok gnupg_write 'echo planted > {home}/.gnupg/planted'
ok hermes_write 'echo planted > {hermes}/planted'
ok aws_mkdir 'mkdir {home}/.aws/sso'
ok cwd_write 'echo ok > {proj}/ok.txt'
`, call{})
	f.expect(r, want{"ssh_write": "no", "npmrc_write": "no", "env_write": "no", "gnupg_write": "no",
		"hermes_write": "no", "aws_mkdir": "no", "cwd_write": "yes"})
	f.wantHostFile("{proj}/ok.txt", "ok\n")
	f.wantHostCredentialsUnchanged()

	r = f.sandbox("cwd: {home}\n", `
ok ssh_write 'mkdir -p {home}/.ssh && echo planted > {home}/.ssh/authorized_keys && test -s {home}/.ssh/authorized_keys'
val ssh_ls 'ls -A {home}/.ssh'
ok npmrc_write 'echo planted > {home}/.npmrc'
ok gnupg_write 'echo planted > {home}/dotfiles/gnupg/planted'
ok gnupg_rm 'rm -rf {home}/dotfiles/gnupg'
ok hermes_write 'mkdir -p {hermes} && echo planted > {hermes}/planted'
ok gcloud_write 'mkdir -p {home}/.config/gcloud && echo planted > {home}/.config/gcloud/planted'
ok home_write 'echo ok > {home}/ok.txt'
ok notes_write 'echo ok > {home}/notes/ok.txt'
`, call{})
	f.expect(r, want{"ssh_write": "no", "ssh_ls": absent, "npmrc_write": "no",
		"gnupg_write": "no", "gnupg_rm": "no", "hermes_write": "no", "gcloud_write": "no", "home_write": "no", "notes_write": "yes"})
	f.wantHostFile("{home}/notes/ok.txt", "ok\n")
	for _, p := range []string{"{home}/.ssh/authorized_keys", "{home}/dotfiles/gnupg/planted", "{hermes}/planted",
		"{home}/.config/gcloud/planted", "{home}/ok.txt"} {
		f.wantHostAbsent(p)
	}
	f.wantHostCredentialsUnchanged()
}

// S5/§8: a credential directory created after compiling is not masked by
// the old invocation, so bwrun refuses it (125, "recompile") and the
// command does not run; a recompiled invocation hides it. Retargeting
// the symlinked .gnupg is refused the same way.
func testCredentialCreatedLater(t *testing.T, f *fixture) {
	inv, _ := f.compile("", call{})
	r := f.bwrun(inv, `ok kube 'test -e {home}/.kube'`, call{})
	f.expect(r, want{"kube": "no"})

	f.write(f.expand("{home}/.kube/config"), "token: "+f.marker+"\n")
	r = f.bwrun(inv, `echo ran > {proj}/ran.txt; cat {home}/.kube/config`, call{})
	f.wantCode(r, 125)
	f.wantStderr(r, "recompile", "{home}/.kube")
	f.wantHostAbsent("{proj}/ran.txt")

	inv, _ = f.compile("", call{})
	r = f.bwrun(inv, `
val kube_ls 'ls -A {home}/.kube'
ok kube_cfg 'cat {home}/.kube/config'
ok cwd_write 'echo ran > {proj}/ran.txt'
`, call{})
	f.expect(r, want{"kube_ls": absent, "kube_cfg": "no", "cwd_write": "yes"})

	f.write(f.expand("{home}/dotfiles/gnupg2/key.key"), f.marker+"\n")
	if err := os.Remove(f.expand("{home}/.gnupg")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("dotfiles/gnupg2", f.expand("{home}/.gnupg")); err != nil {
		t.Fatal(err)
	}
	f.chown(f.expand("{home}/.gnupg"))
	r = f.bwrun(inv, `echo ran2 > {proj}/ran2.txt; cat {home}/.gnupg/key.key`, call{})
	f.wantCode(r, 125)
	f.wantStderr(r, "recompile", "{home}/.gnupg")
	f.wantHostAbsent("{proj}/ran2.txt")
}

// S5/S6: with HERMES_HOME elsewhere, both it and ~/.hermes are hidden,
// its scratch directory too (compiled without a sandbox ID, nothing of
// it is this invocation's own): TMPDIR is the sandbox's /tmp.
func testHermesHomeElsewhere(t *testing.T, f *fixture) {
	f.write(f.expand("{base}/hermes-elsewhere/.env"), "OPENAI_API_KEY="+f.marker+"\n")
	f.mkdirAll(f.expand("{base}/hermes-elsewhere/cache/scratch"))
	env := []string{"HERMES_HOME={base}/hermes-elsewhere"}
	r := f.sandbox("", `
ok elsewhere_env 'cat {base}/hermes-elsewhere/.env'
val elsewhere_ls 'ls -A {base}/hermes-elsewhere'
ok default_env 'cat {hermes}/.env'
ok default_auth 'cat {hermes}/auth.json'
val default_ls 'ls -A {hermes}'
val tmpdir 'echo $TMPDIR'
ok tmpdir_write 'echo s > "$TMPDIR/s-{tag}"'
`, call{env: env})
	f.expect(r, want{"elsewhere_env": "no", "elsewhere_ls": "", "default_env": "no", "default_auth": "no",
		"default_ls": absent, "tmpdir": "/tmp", "tmpdir_write": "yes"})
	f.wantHostAbsent("{base}/hermes-elsewhere/cache/scratch/s-{tag}")
	f.wantHostCredentialsUnchanged()
}

// S6: home_mode profile: HERMES_HOME/home is HOME, readable and
// writable (on the host); the real home's credentials and the rest of
// the Hermes home stay hidden.
func testHomeModeProfile(t *testing.T, f *fixture) {
	f.write(f.expand("{hermes}/home/profile.txt"), "profile-home\n")
	r := f.sandbox("home_mode: profile\n", `
val home 'echo $HOME'
val profile_file 'cat "$HOME/profile.txt"'
ok home_write 'echo p > "$HOME/written.txt"'
ok real_ssh 'cat {home}/.ssh/id_rsa'
ok hermes_env 'cat {hermes}/.env'
ok cwd_write 'echo c > {proj}/c.txt'
`, call{})
	f.expect(r, want{"home": "{hermes}/home", "profile_file": "profile-home", "home_write": "yes",
		"real_ssh": "no", "hermes_env": "no", "cwd_write": "yes"})
	f.wantHostFile("{hermes}/home/written.txt", "p\n")
	f.wantHostFile("{proj}/c.txt", "c\n")
	f.wantHostCredentialsUnchanged()
}

// S7 (and R7): with cwd = HOME (a warning; the allowlist layout) the
// parents of hidden paths are pinned: renaming .config, dotfiles
// (holding the .gnupg target) or a mask fails, and the host keeps them.
// The hidden entries are absent, the Hermes home too (compiled without a
// sandbox ID, no scratch is bound back into it), and the layout's tmpfs
// is read-only, so renaming fails there too. Each non-dot
// entry is a mount point of its own: renaming it fails, writing inside
// it works and reaches the host (R7's warned consequence); .bashrc stays
// read-only (H9) and .config/app.conf, left out, cannot be recreated
// (~/.config's tmpfs is read-only).
func testPins(t *testing.T, f *fixture) {
	inv, warnings := f.compile("cwd: {home}\n", call{})
	if !strings.Contains(warnings, "[R7]") {
		t.Errorf("cwd = HOME compiled without an R7 warning: %q", warnings)
	}
	r := f.bwrun(inv, `
ok mv_config 'mv {home}/.config {home}/.config2'
ok mv_gcloud 'mv {home}/.config/gcloud {home}/gcloud2'
ok mv_dotfiles 'mv {home}/dotfiles {home}/dotfiles2'
ok mv_ssh 'mv {home}/.ssh {home}/ssh2'
ok mv_hermes 'mv {hermes} {home}/hermes2'
ok mv_scratch 'mv {scratch} {home}/scratch2'
val gcloud_ls 'ls -A {home}/.config/gcloud'
val ssh_ls 'ls -A {home}/.ssh'
ok mv_notes 'mv {home}/notes {home}/notes2'
ok notes_write 'echo added > {home}/notes/added'
ok bashrc 'echo "# added" >> {home}/.bashrc'
ok app_conf 'echo "# added" >> {home}/.config/app.conf'
`, call{})
	f.expect(r, want{"mv_config": "no", "mv_gcloud": "no", "mv_dotfiles": "no", "mv_ssh": "no", "mv_hermes": "no",
		"mv_scratch": "no", "gcloud_ls": absent, "ssh_ls": absent, "mv_notes": "no", "notes_write": "yes", "bashrc": "no", "app_conf": "no"})
	f.wantHostCredentialsUnchanged()
	for _, p := range []string{"{home}/.config2", "{home}/dotfiles2", "{home}/hermes2", "{home}/notes2", "{home}/gcloud2", "{home}/ssh2", "{home}/scratch2"} {
		f.wantHostAbsent(p)
	}
	f.wantHostFile("{home}/notes/todo", "todo\n")
	f.wantHostFile("{home}/notes/added", "added\n")
	f.wantHostFile("{home}/.bashrc", "# bashrc\n")
	f.wantHostFile("{home}/.config/app.conf", "app-config\n")
}

// S8: a CA bundle inside the hidden Hermes home (SSL_CERT_FILE, and a
// certificate directory in SSL_CERT_DIR) is readable, read-only, at its
// own path; the rest of the Hermes home stays hidden.
func testCABundle(t *testing.T, f *fixture) {
	env := []string{"SSL_CERT_FILE={hermes}/venv/cacert.pem", "SSL_CERT_DIR={hermes}/certs"}
	r := f.sandbox("", `
val ca 'cat "$SSL_CERT_FILE"'
val ca_env 'echo $SSL_CERT_FILE'
val certdir 'ls -A "$SSL_CERT_DIR"'
val certdir_file 'cat "$SSL_CERT_DIR/extra.pem"'
ok ca_write 'echo x >> "$SSL_CERT_FILE"'
ok certdir_write 'echo x > "$SSL_CERT_DIR/new.pem"'
val venv_ls 'ls -A {hermes}/venv'
ok venv_other 'cat {hermes}/venv/lib/site.py'
ok hermes_env 'cat {hermes}/.env'
ok hermes_auth 'cat {hermes}/auth.json'
`, call{env: env})
	f.expect(r, want{"ca": "-----BEGIN CERTIFICATE----- sbx-test-ca -----END CERTIFICATE-----", "ca_env": "{hermes}/venv/cacert.pem",
		"certdir": "extra.pem", "certdir_file": "sbx-cert-dir", "ca_write": "no", "certdir_write": "no",
		"venv_ls": "cacert.pem", "venv_other": "no", "hermes_env": "no", "hermes_auth": "no"})
	f.wantHostFile("{hermes}/venv/cacert.pem", "-----BEGIN CERTIFICATE----- sbx-test-ca -----END CERTIFICATE-----\n")
	f.wantHostAbsent("{hermes}/certs/new.pem")
	f.wantHostCredentialsUnchanged()
}

// S9: the restricted profile: the working directory is read-only,
// reading works, /tmp is writable and is TMPDIR, no network; nothing of
// the scratch is bound back without a sandbox ID (with one it is
// read-only under restricted: S6_sandbox_envs).
func testRestricted(t *testing.T, f *fixture) {
	r := f.sandbox("profile: restricted\n", `
ok cwd_write 'echo x > {proj}/r.txt'
ok cwd_rm 'rm -f {proj}/README'
val cwd_read 'cat {proj}/README'
ok tmp_write 'echo t > /tmp/t && test -s /tmp/t'
val tmpdir 'echo $TMPDIR'
ok tmpdir_write 'echo t > "$TMPDIR/r-{tag}"'
ok ssh 'cat {home}/.ssh/id_rsa'
val ifaces 'tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "'
`, call{})
	f.expect(r, want{"cwd_write": "no", "cwd_rm": "no", "cwd_read": "readme", "tmp_write": "yes", "tmpdir": "/tmp",
		"tmpdir_write": "yes", "ssh": "no", "ifaces": "lo"})
	f.wantHostAbsent("{proj}/r.txt")
	f.wantHostFile("{proj}/README", "readme\n")
	f.wantHostAbsent("{scratch}/r-{tag}")
}

// S9: a cwd that does not exist runs read-only in its nearest existing
// parent (with a warning), and nothing is created on the host.
func testMissingCwd(t *testing.T, f *fixture) {
	inv, warnings := f.compile("cwd: {proj}/not/yet\n", call{})
	if !strings.Contains(warnings, "does not exist") {
		t.Errorf("a missing cwd compiled without a warning: %q", warnings)
	}
	r := f.bwrun(inv, `
val pwd 'pwd'
ok write 'echo x > {proj}/m.txt'
val read 'cat README'
ok tmp 'echo t > /tmp/t'
`, call{})
	f.expect(r, want{"pwd": "{proj}", "write": "no", "read": "readme", "tmp": "yes"})
	f.wantHostAbsent("{proj}/not")
	f.wantHostAbsent("{proj}/m.txt")
}

// S9 and R3's exception: a read-write bind is writable (on the host), a
// read-only bind readable but not writable; a read-write bind directly
// under the cwd (dest = src) is allowed.
func testBinds(t *testing.T, f *fixture) {
	r := f.sandbox(`binds:
  - {src: {base}/data, readonly: false}
  - {src: {base}/ro}
  - {src: {proj}/sub, readonly: false}
`, `
ok data_write 'echo d > {base}/data/new.txt'
val data_read 'cat {base}/data/existing'
ok ro_write 'echo r > {base}/ro/new.txt'
ok ro_rm 'rm -f {base}/ro/file'
val ro_read 'cat {base}/ro/file'
ok sub_write 'echo s > {proj}/sub/inner/s.txt'
ok mnt_write 'echo m > {base}/mnt/m.txt'
`, call{})
	f.expect(r, want{"data_write": "yes", "data_read": "data", "ro_write": "no", "ro_rm": "no", "ro_read": "read-only-data",
		"sub_write": "yes", "mnt_write": "no"})
	f.wantHostFile("{base}/data/new.txt", "d\n")
	f.wantHostAbsent("{base}/ro/new.txt")
	f.wantHostFile("{base}/ro/file", "read-only-data\n")
	f.wantHostFile("{proj}/sub/inner/s.txt", "s\n")
	f.wantHostAbsent("{base}/mnt/m.txt")
}

// S10: without bwrap no command runs: `bwpolicy run` names the package
// to install (degraded under degraded_mode warn, an error under fail)
// and exits 125, also when the bwrap found is not a working bwrap; bwrun
// with an invocation whose bwrap has disappeared, or that was compiled
// without one (naming the package), exits 125; the command never ran.
func testNoBwrap(t *testing.T, f *fixture) {
	f.mkdirAll(f.expand("{base}/emptybin"))
	noBwrap := []string{"-BWPOLICY_BWRAP", "PATH={base}/emptybin"}
	cmd := []string{"--", "/bin/sh", "-c", "echo ran > {proj}/ran.txt"}

	r := f.exec(call{env: noBwrap, argv: append([]string{tool("bwpolicy"), "run"}, cmd...)})
	f.wantCode(r, 125)
	f.wantStderr(r, "apt install bubblewrap", "degraded")
	f.wantHostAbsent("{proj}/ran.txt")

	r = f.exec(call{env: noBwrap, argv: append([]string{tool("bwpolicy"), "run", "--config", f.settings("degraded_mode: fail\n")}, cmd...)})
	f.wantCode(r, 125)
	f.wantStderr(r, "apt install bubblewrap", "error")
	f.wantHostAbsent("{proj}/ran.txt")

	r = f.exec(call{env: []string{"BWPOLICY_BWRAP={base}/no/such/bwrap"}, argv: append([]string{tool("bwpolicy"), "run"}, cmd...)})
	f.wantCode(r, 125)
	f.wantStderr(r, "bubblewrap")
	f.wantHostAbsent("{proj}/ran.txt")

	// A "bwrap" whose probe fails (it is not bwrap at all): still no
	// command, whatever that program does with the arguments.
	for _, fake := range []string{"/bin/false", "/bin/true"} {
		r = f.exec(call{env: []string{"BWPOLICY_BWRAP=" + fake}, argv: append([]string{tool("bwpolicy"), "run"}, cmd...)})
		if r.code != 125 {
			t.Errorf("BWPOLICY_BWRAP=%s: exit %d, want 125: %v", fake, r.code, r)
		}
		f.wantHostAbsent("{proj}/ran.txt")
	}

	// bwrun: the invocation's bwrap is gone.
	b, err := os.ReadFile(bwrapPath)
	if err != nil {
		t.Fatal(err)
	}
	cp := f.expand("{base}/bwrap-copy")
	if err := os.WriteFile(cp, b, 0o755); err != nil {
		t.Fatal(err)
	}
	inv, _ := f.compile("", call{env: []string{"BWPOLICY_BWRAP=" + cp}})
	r = f.bwrun(inv, `ok ran 'true'`, call{})
	f.expect(r, want{"ran": "yes"})
	if err := os.Remove(cp); err != nil {
		t.Fatal(err)
	}
	r = f.exec(call{argv: append([]string{tool("bwrun"), inv}, cmd...)})
	f.wantCode(r, 125)
	f.wantHostAbsent("{proj}/ran.txt")

	// bwrun: an invocation compiled where there was no bwrap at all
	// names the package to install.
	inv, _ = f.compile("", call{env: noBwrap})
	r = f.exec(call{argv: append([]string{tool("bwrun"), inv}, cmd...)})
	f.wantCode(r, 125)
	f.wantStderr(r, "apt install bubblewrap", "dnf install bubblewrap", "pacman -S bubblewrap", "never unsandboxed")
	f.wantHostAbsent("{proj}/ran.txt")
}

// S11: one sandbox per command: background processes (plain, setsid,
// nohup) run while the command runs and die with it.
func testBackgroundDies(t *testing.T, f *fixture) {
	// With the default limits, and with none at all (memory_mb,
	// cpu_seconds and max_procs 0): the runtime needs the sandbox's first
	// process either way, and an invocation without limits used to lack
	// --info-fd, which bwrun refuses (exit 125) since S11.
	for _, settings := range []string{"", "memory_mb: 0\ncpu_seconds: 0\nmax_procs: 0\n"} {
		arg := f.sleepArg()
		r := f.sandbox(settings, strings.ReplaceAll(`
sleep ARG &
setsid sleep ARG &
nohup sleep ARG >/dev/null 2>&1 &
sleep 0.3
val running 'ps -e -o args= | grep -c "^sleep ARG$"'
`, "ARG", arg), call{})
		f.expect(r, want{"running": "3"})
		if r.elapsed > 20*time.Second {
			t.Errorf("settings %q: the command waited for its background processes: %v", settings, r.elapsed)
		}
		if !waitFor(5*time.Second, func() bool { return len(hostProcsWithArg(arg)) == 0 }) {
			pids := hostProcsWithArg(arg)
			for _, p := range pids {
				syscall.Kill(p, syscall.SIGKILL)
			}
			t.Errorf("settings %q: background processes %v outlived the command", settings, pids)
		}
	}
}

// §8: the command's exit status passes through; a missing command is
// 127, a non-executable one 126, a signal 128+N; stdout and stderr reach
// the caller.
func testExitStatus(t *testing.T, f *fixture) {
	inv, _ := f.compile("", call{})
	for _, c := range []struct {
		argv []string
		code int
	}{
		{[]string{"/bin/sh", "-c", "exit 7"}, 7},
		{[]string{"/bin/sh", "-c", "exit 0"}, 0},
		{[]string{"/nonexistent/sbx-command"}, 127},
		{[]string{"sbx-no-such-command"}, 127},
		{[]string{"{proj}/README"}, 126},
		{[]string{"/bin/sh", "-c", "kill -TERM $$"}, 128 + int(syscall.SIGTERM)},
	} {
		r := f.exec(call{argv: append([]string{tool("bwrun"), inv, "--"}, c.argv...)})
		f.wantCode(r, c.code)
	}
	r := f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/sh", "-c", "echo out; echo err >&2"}})
	f.wantCode(r, 0)
	if r.stdout != "out\n" || !strings.Contains(r.stderr, "err") {
		t.Errorf("stdout/stderr not passed through: %v", r)
	}
	// None of the runtime's descriptors (bwrap's info, block and status
	// pipes, the seccomp program, the empty files of the masks) reaches
	// the command: ls sees its standard streams and its own listing.
	r = f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/ls", "/proc/self/fd"}})
	f.wantCode(r, 0)
	if got := strings.Fields(r.stdout); strings.Join(got, " ") != "0 1 2 3" {
		t.Errorf("descriptors in the sandbox: %q, want 0 1 2 3 (3 is ls's own)", got)
	}
}

// §3.1: with no flags, bwpolicy run reads $HERMES_HOME/config.yaml (and
// ~/.hermes/config.yaml when HERMES_HOME is unset): its workspace
// profile takes the network away and its memory_mb is applied. Without
// the file the defaults apply (network profile, 256 MiB).
func testHermesConfig(t *testing.T, f *fixture) {
	addr := hostListener(t)
	f.write(f.expand("{hermes}/config.yaml"), `model: some-model
terminal:
  backend: bubblewrap
  timeout: 180
plugins:
  entries:
    bubblewrap:
      enabled: true
      settings:
        profile: workspace
        memory_mb: 300
`)
	script := prelude + strings.ReplaceAll(f.expand(`
val vmem 'ulimit -v'
ok net 'curl -sS --max-time 3 http://ADDR/'
ok cwd_write 'echo x > {proj}/h.txt'
ok hermes_config 'cat {hermes}/config.yaml'
`), "ADDR", addr)
	run := []string{tool("bwpolicy"), "run", "--", "/bin/sh", "-c", script}
	r := f.exec(call{argv: run})
	f.expect(r, want{"vmem": "307200", "net": "no", "cwd_write": "yes", "hermes_config": "no"})
	r = f.exec(call{argv: run, env: []string{"-HERMES_HOME"}})
	f.expect(r, want{"vmem": "307200", "net": "no", "cwd_write": "yes", "hermes_config": "no"})

	r = f.exec(call{argv: []string{tool("bwpolicy"), "compile", "--explain"}})
	f.wantCode(r, 0)
	if !strings.Contains(r.stdout, f.expand("{hermes}/config.yaml")) || !strings.Contains(r.stdout, "profile workspace") {
		t.Errorf("explain does not show the discovered config.yaml and its profile:\n%s", r.stdout)
	}

	if err := os.Remove(f.expand("{hermes}/config.yaml")); err != nil {
		t.Fatal(err)
	}
	r = f.exec(call{argv: run})
	f.expect(r, want{"vmem": "262144", "net": "yes", "cwd_write": "yes"})
}

// A custom profile (--profiles) adds a hidden path and makes the cwd
// read-only; a custom profile that shares the network is refused (R13)
// and its command never runs.
func testCustomProfile(t *testing.T, f *fixture) {
	f.write(f.expand("{base}/profiles/ci.cue"), "name:         \"ci\"\ndescription:  \"CI jobs: read-only checkout\"\ncwd_writable: false\nhidden_home: \".cargo/credentials.toml\": true\n")
	f.write(f.expand("{base}/profiles/leaky.cue"), "name:         \"leaky\"\ndescription:  \"shares the network\"\ncwd_writable: true\nnetwork:      \"host\"\n")
	f.write(f.expand("{home}/.cargo/credentials.toml"), "token = \""+f.marker+"\"\n")
	f.write(f.expand("{home}/.cargo/config.toml"), "[build]\n")
	profiles := []string{"--profiles", f.expand("{base}/profiles")}

	ci := f.settings("profile: ci\n")
	inv := f.expand("{base}/ci.json")
	r := f.exec(call{argv: append([]string{tool("bwpolicy"), "compile", "--config", ci, "-o", inv}, profiles...)})
	f.wantCode(r, 0)
	r = f.bwrun(inv, `
val cargo_size 'wc -c < {home}/.cargo/credentials.toml'
val cargo_config 'cat {home}/.cargo/config.toml'
ok cwd_write 'echo x > {proj}/ci.txt'
val ssh_ls 'ls -A {home}/.ssh'
`, call{})
	f.expect(r, want{"cargo_size": "0", "cargo_config": "[build]", "cwd_write": "no", "ssh_ls": absent})
	f.wantHostAbsent("{proj}/ci.txt")

	leaky := f.settings("profile: leaky\n")
	r = f.exec(call{argv: append([]string{tool("bwpolicy"), "compile", "--config", leaky, "-o", f.expand("{base}/leaky.json")}, profiles...)})
	f.wantCode(r, 1)
	f.wantStderr(r, "leaky")
	f.wantHostAbsent("{base}/leaky.json")
	r = f.exec(call{argv: append(append([]string{tool("bwpolicy"), "run", "--config", leaky}, profiles...),
		"--", "/bin/sh", "-c", "echo ran > {proj}/ran.txt")})
	f.wantCode(r, 125)
	f.wantHostAbsent("{proj}/ran.txt")
}

// S4: the agent variables are removed again after the shell's rc files
// run. ~/.profile (login shells) and ~/.zshenv (every zsh) export
// SSH_AUTH_SOCK and DBUS_SESSION_BUS_ADDRESS again; the command, run as
// a login shell through bwrun and through bwpolicy run, still sees
// neither, while the rc files' other variables prove they ran.
func testUnsetAfterRC(t *testing.T, f *fixture) {
	f.write(f.expand("{home}/.profile"), f.expand("export SSH_AUTH_SOCK={home}/agent.sock DBUS_SESSION_BUS_ADDRESS=unix:path={home}/bus RC_RAN=profile\n"))
	f.write(f.expand("{home}/.zshenv"), f.expand("export SSH_AUTH_SOCK={home}/agent.sock RC_RAN=zshenv\n"))
	const script = `echo "rc=${RC_RAN-none} ssh=${SSH_AUTH_SOCK-unset} dbus=${DBUS_SESSION_BUS_ADDRESS-unset}"`
	inv, _ := f.compile("", call{})
	for _, c := range []struct {
		argv []string
		rc   string
	}{
		{[]string{tool("bwrun"), inv, "--", "/bin/sh", "-lc", script}, "profile"},
		{[]string{tool("bwrun"), inv, "--", "bash", "--login", "-c", script}, "profile"},
		{[]string{tool("bwrun"), inv, "--", "zsh", "-c", script}, "zshenv"},
		{[]string{tool("bwpolicy"), "run", "--", "/bin/sh", "-l", "-c", script}, "profile"},
	} {
		r := f.exec(call{argv: c.argv, env: []string{"SSH_AUTH_SOCK=/run/user/{uid}/ssh"}})
		f.wantCode(r, 0)
		if got, want := strings.TrimSpace(r.stdout), "rc="+c.rc+" ssh=unset dbus=unset"; got != want {
			t.Errorf("%q printed %q, want %q", c.argv[3:], got, want)
		}
	}
	// Control: a shell started without -c by the command itself is
	// not rewritten, so the rc file's value is there (the check above
	// can fail).
	r := f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/usr/bin/env", "sh", "-lc", script}})
	f.wantCode(r, 0)
	if got := strings.TrimSpace(r.stdout); got != f.expand("rc=profile ssh={home}/agent.sock dbus=unix:path={home}/bus") {
		t.Errorf("control: %q", got)
	}
}
