package sandboxtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// H1: no nested user namespaces. `unshare -U` fails in the sandbox (the
// seccomp filter answers EPERM); with the namespaces seccomp group
// relaxed it still fails, now with ENOSPC from --disable-userns, so each
// layer holds on its own. Ordinary commands work in both.
func testNestedUserns(t *testing.T, f *fixture) {
	r := f.sandbox("", `
val unshare_u 'unshare -U true'
ok unshare_r 'unshare -r true'
ok plain 'true'
`, call{})
	f.expect(r, want{"unshare_u": "~Operation not permitted", "unshare_r": "no", "plain": "yes"})

	inv, warnings := f.compile("seccomp:\n  allow: [namespaces]\n", call{})
	t.Logf("relaxed seccomp: %s", warnings)
	r = f.bwrun(inv, `
val unshare_u 'unshare -U true'
ok unshare_r 'unshare -r true'
ok plain 'true'
`, call{})
	f.expect(r, want{"unshare_u": "~No space left on device", "unshare_r": "no", "plain": "yes"})
}

// H2: the seccomp deny-list: keyctl, TIOCSTI, ptrace, mount and bpf get
// EPERM, clone3 ENOSYS, while ordinary calls work (sysprobe prints the
// errno of one harmless call; a Go program needs memory_mb 0).
func testSeccomp(t *testing.T, f *fixture) {
	r := f.sandbox("memory_mb: 0\n", `
val keyctl '{bin}/sysprobe keyctl'
val tiocsti '{bin}/sysprobe tiocsti'
val tiocsti_high '{bin}/sysprobe tiocsti-high'
val ptrace '{bin}/sysprobe ptrace'
val mount '{bin}/sysprobe mount'
val bpf '{bin}/sysprobe bpf'
val clone3 '{bin}/sysprobe clone3'
val getpid '{bin}/sysprobe getpid'
val read '{bin}/sysprobe read'
val tcgets '{bin}/sysprobe tcgets'
`, call{})
	f.expect(r, want{"keyctl": "errno=EPERM", "tiocsti": "errno=EPERM", "tiocsti_high": "errno=EPERM", "ptrace": "errno=EPERM",
		"mount": "errno=EPERM", "bpf": "errno=EPERM", "clone3": "errno=ENOSYS",
		"getpid": "errno=0", "read": "errno=0", "tcgets": "errno=0"})
}

// H4: hide globs. Matched files read as zero bytes, matched directories
// as empty, cannot be written, renamed or unmasked (their parents inside
// the cwd are pinned), the rest of the project stays readable and
// writable. A new match created on the host after compiling makes bwrun
// refuse (125, "recompile") without running the command; a recompiled
// invocation hides it.
func testHideGlobs(t *testing.T, f *fixture) {
	f.write(f.expand("{proj}/src/tls/server.pem"), f.marker+"\n")
	f.write(f.expand("{proj}/deploy/key.pem"), f.marker+"\n")
	f.write(f.expand("{proj}/secrets/db.txt"), f.marker+"\n")
	settings := "profile: workspace\nhide: [\"**/*.pem\", \"secrets/\"]\n"
	inv, _ := f.compile(settings, call{})
	r := f.bwrun(inv, `
val pem_size 'wc -c < {proj}/src/tls/server.pem'
val key_size 'wc -c < {proj}/deploy/key.pem'
val secrets_ls 'ls -A {proj}/secrets'
ok pem_write 'echo x > {proj}/src/tls/server.pem'
ok pem_rm 'rm -f {proj}/deploy/key.pem'
ok secrets_mv 'mv {proj}/secrets {proj}/secrets2'
ok tls_mv 'mv {proj}/src/tls {proj}/src/tls2'
ok src_mv 'mv {proj}/src {proj}/src2'
ok secrets_write 'echo planted > {proj}/secrets/planted'
val main 'cat {proj}/src/main.go'
ok main_write 'echo "// edited" >> {proj}/src/main.go'
`, call{})
	f.expect(r, want{"pem_size": "0", "key_size": "0", "secrets_ls": "", "pem_write": "no", "pem_rm": "no",
		"secrets_mv": "no", "tls_mv": "no", "src_mv": "no", "main": "package main", "main_write": "yes"})
	f.wantHostFile("{proj}/src/tls/server.pem", f.marker+"\n")
	f.wantHostFile("{proj}/deploy/key.pem", f.marker+"\n")
	f.wantHostFile("{proj}/secrets/db.txt", f.marker+"\n")
	f.wantHostAbsent("{proj}/secrets/planted")
	f.wantHostFile("{proj}/src/main.go", "package main\n// edited\n")

	// A new match after compiling: refused, the command does not run.
	f.write(f.expand("{proj}/src/new.pem"), f.marker+"\n")
	r = f.bwrun(inv, `echo ran > {proj}/ran.txt; cat {proj}/src/new.pem`, call{})
	f.wantCode(r, 125)
	f.wantStderr(r, "recompile")
	f.wantHostAbsent("{proj}/ran.txt")

	inv, _ = f.compile(settings, call{})
	r = f.bwrun(inv, `
val new_size 'wc -c < {proj}/src/new.pem'
val pem_size 'wc -c < {proj}/src/tls/server.pem'
`, call{})
	f.expect(r, want{"new_size": "0", "pem_size": "0"})
}

// H4 with S9: hide globs must not break the writable working directory.
// Hermes compiles once per terminal and runs every command with bwrun;
// a command that creates an ordinary file (a build output, a new
// directory) in the project must not make the next command stale, since
// nothing new matches the globs. (A new match from the host is refused:
// H4_hide_globs.)
func testHideGlobsOwnWrites(t *testing.T, f *fixture) {
	f.write(f.expand("{proj}/src/tls/server.pem"), f.marker+"\n")
	inv, _ := f.compile("profile: workspace\nhide: [\"**/*.pem\", \"secrets/\"]\n", call{})
	r := f.bwrun(inv, `
ok build 'echo obj > {proj}/src/main.o && mkdir {proj}/build && echo bin > {proj}/build/app'
`, call{})
	f.expect(r, want{"build": "yes"})
	f.wantHostFile("{proj}/build/app", "bin\n")
	r = f.bwrun(inv, `
val pem_size 'wc -c < {proj}/src/tls/server.pem'
val app 'cat {proj}/build/app'
`, call{})
	f.expect(r, want{"pem_size": "0", "app": "bin"})
}

// H7: credential stores beyond the seed's list (~/.git-credentials,
// ~/.config/gh) read as empty, and the paths credential variables name
// are hidden wherever they point: an SSH agent socket listening in the
// home directory (the agent answers outside the sandbox, not inside, not
// even when a command names the path itself) and a GNUPGHOME outside the
// home directory. The same identity reads and reaches all of them outside.
func testCredentialLocations(t *testing.T, f *fixture) {
	sock := f.expand("{home}/.agents/ssh.sock")
	f.mkdirAll(filepath.Dir(sock))
	greetingListener(t, sock, f.expand("agent-{tag}"))
	if err := os.Chmod(sock, 0o666); err != nil {
		t.Fatal(err)
	}
	f.write(f.expand("{base}/keys/gnupg/private-keys-v1.d/k.key"), f.marker+"\n")
	f.write(f.expand("{base}/keys/rclone.conf"), "[drive]\ntoken = "+f.marker+"\n")
	env := []string{"SSH_AUTH_SOCK=" + sock, "GNUPGHOME={base}/keys/gnupg", "RCLONE_CONFIG={base}/keys/rclone.conf"}
	script := `
val agent 'python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(s.recv(100).decode())" {home}/.agents/ssh.sock'
val sock_type 'stat -c %F {home}/.agents/ssh.sock'
ok gnupg_key 'cat {base}/keys/gnupg/private-keys-v1.d/k.key'
val gnupg_ls 'ls -A {base}/keys/gnupg'
ok git_credentials 'grep -q github.com {home}/.git-credentials'
ok gh_hosts 'grep -q oauth_token {home}/.config/gh/hosts.yml'
ok rclone 'grep -q token {base}/keys/rclone.conf'
val vars 'echo ${SSH_AUTH_SOCK-unset} ${GNUPGHOME-unset}'
`
	// Control: outside the sandbox the agent answers and the files read.
	r := f.exec(call{env: env, argv: []string{"/bin/sh", "-c", prelude + f.expand(script)}})
	f.expect(r, want{"agent": "agent-{tag}", "sock_type": "socket", "gnupg_key": "yes",
		"gnupg_ls": "private-keys-v1.d", "git_credentials": "yes", "gh_hosts": "yes", "rclone": "yes",
		"vars": sock + " {base}/keys/gnupg"})

	inv, _ := f.compile("", call{env: env})
	r = f.bwrun(inv, script, call{env: env})
	f.expect(r, want{"sock_type": absent, "gnupg_key": "no", "gnupg_ls": "",
		"git_credentials": "no", "gh_hosts": "no", "rclone": "no", "vars": "unset unset"})
	if strings.Contains(r.stdout, f.expand("agent-{tag}")) || !strings.Contains(probes(r.stdout)["agent"], "Error") {
		t.Errorf("the agent socket was reachable (or the probe did not run): %v", r)
	}
	// Compiled without them, run with them: the paths they name now are
	// not hidden, so the runtime refuses (stale, 125) and nothing runs.
	inv, _ = f.compile("", call{})
	r = f.bwrun(inv, "echo ran", call{env: env})
	f.wantCode(r, 125)
	f.wantStderr(r, "$SSH_AUTH_SOCK names "+sock+", which this invocation does not hide", "$GNUPGHOME names", "recompile")
	if strings.Contains(r.stdout, "ran") {
		t.Errorf("the command ran: %v", r)
	}
	// A variable naming nothing that exists is no reason to refuse; it
	// does not reach the command either (an H5 name).
	r = f.bwrun(inv, "val vars 'echo ${SSH_AUTH_SOCK-unset}'", call{env: []string{"SSH_AUTH_SOCK={home}/.agents/gone.sock"}})
	f.expect(r, want{"vars": "unset"})
}

// H9: in the writable working directory, what runs later outside the
// sandbox stays read-only: the repository's config and hooks (also the
// worktree directory core.hooksPath names) and the direnv file can be
// neither changed, replaced nor renamed away, while
// the project and the rest of the repository stay writable (a commit
// works). The host is unchanged afterwards.
func testProtectedEntries(t *testing.T, f *fixture) {
	r := f.exec(call{argv: []string{"git", "init", "-q", "{proj}"}})
	f.wantCode(r, 0)
	r = f.exec(call{argv: []string{"git", "-C", "{proj}", "config", "core.hooksPath", "tools/hooks"}})
	f.wantCode(r, 0)
	f.mkdirAll(f.expand("{proj}/tools/hooks"))
	r = f.exec(call{argv: []string{"git", "init", "-q", "{proj}/vendored"}})
	f.wantCode(r, 0)
	f.write(f.expand("{proj}/.envrc"), "export SAFE=1\n")
	config := f.hostRead("{proj}/.git/config")
	script := `
ok config_append 'echo "[core] fsmonitor = evil" >> .git/config'
ok config_git 'git config core.hooksPath /tmp/evil'
ok hook_create 'echo evil > .git/hooks/post-checkout'
ok hooks_rename 'mv .git/hooks .git/hooks2'
ok git_rename 'mv .git .git2'
ok hookspath_create 'echo evil > tools/hooks/pre-commit'
ok tools_rename 'mv tools tools2'
ok nested_hook 'echo evil > vendored/.git/hooks/pre-commit'
ok nested_rename 'mv vendored vendored2'
ok nested_write 'echo x > vendored/file'
ok envrc_write 'echo evil >> .envrc'
ok envrc_rm 'rm -f .envrc'
ok project_write 'echo x > new-file'
ok commit 'git -c user.email=a@b -c user.name=a add new-file && git -c user.email=a@b -c user.name=a commit -q -m x'
`
	// Control: the same identity outside the sandbox may do all of it
	// (in a copy, so the fixture stays as it is).
	r = f.sandbox("", script, call{})
	f.expect(r, want{"config_append": "no", "config_git": "no", "hook_create": "no", "hooks_rename": "no",
		"git_rename": "no", "hookspath_create": "no", "tools_rename": "no",
		"nested_hook": "no", "nested_rename": "no", "nested_write": "yes", "envrc_write": "no", "envrc_rm": "no", "project_write": "yes", "commit": "yes"})
	if got := f.hostRead("{proj}/.git/config"); got != config {
		t.Errorf("host .git/config changed:\n%s", got)
	}
	f.wantHostFile("{proj}/.envrc", "export SAFE=1\n")
	f.wantHostAbsent("{proj}/.git/hooks/post-checkout")
	f.wantHostAbsent("{proj}/tools/hooks/pre-commit")
	if !f.hostExists("{proj}/new-file") {
		t.Error("the project write did not reach the host")
	}
	r = f.exec(call{argv: []string{"/bin/sh", "-c", "cp -a {proj} {base}/copy && cd {base}/copy && " +
		"echo x >> .git/config && echo y > .git/hooks/post-checkout && echo z >> .envrc && echo ok"}})
	if r.code != 0 || !strings.Contains(r.stdout, "ok") {
		t.Errorf("control outside the sandbox failed: %v", r)
	}

	// protect.allow leaves .envrc writable (warned); the rest stays.
	inv, warnings := f.compile("protect:\n  allow: [.envrc]\n", call{})
	if !strings.Contains(warnings, "commands may change .envrc") {
		t.Errorf("protect.allow compiled without its warning: %q", warnings)
	}
	r = f.bwrun(inv, `
ok envrc_write 'echo allowed >> .envrc'
ok config_append 'echo x >> .git/config'
`, call{})
	f.expect(r, want{"envrc_write": "yes", "config_append": "no"})
	f.wantHostFile("{proj}/.envrc", "export SAFE=1\nallowed\n")

	// A repository a command creates is not protected yet: bwrun says
	// so after the command, and the next command is refused until a
	// recompile protects it.
	f.mkdirAll(f.expand("{base}/fresh"))
	inv, _ = f.compile("cwd: {base}/fresh\n", call{})
	r = f.exec(call{dir: "{base}/fresh", argv: []string{tool("bwrun"), inv, "--", "/bin/sh", "-c", "git init -q . && echo made"}})
	f.wantCode(r, 0)
	f.wantStderr(r, "created "+f.expand("{base}/fresh/.git/hooks"), "runs outside the sandbox later", "recompile")
	r = f.exec(call{dir: "{base}/fresh", argv: []string{tool("bwrun"), inv, "--", "/bin/true"}})
	f.wantCode(r, 125)
	inv, _ = f.compile("cwd: {base}/fresh\n", call{})
	r = f.bwrun(inv, "ok hook 'echo evil > .git/hooks/pre-commit'", call{dir: "{base}/fresh"})
	f.expect(r, want{"hook": "no"})
}

// H7: XDG_CONFIG_HOME and XDG_DATA_HOME move ~/.config and
// ~/.local/share elsewhere (under BASE, outside the home directory): the
// credential stores there (gh's token, the keyring) read as empty, while
// the rest of the moved directory (git's configuration) stays readable
// and the variables still reach the command. The control: the same
// identity reads the stores outside. Compiled without the variables and
// run with them, bwrun refuses (stale, 125): their stores were never
// looked at.
func testXDGRelocated(t *testing.T, f *fixture) {
	f.write(f.expand("{base}/xdg/cfg/gh/hosts.yml"), "oauth_token: "+f.marker+"\n")
	f.write(f.expand("{base}/xdg/cfg/git/config"), "[user]\n\tname = tester\n")
	f.write(f.expand("{base}/xdg/share/keyrings/login.keyring"), f.marker+"\n")
	f.chown(f.expand("{base}/xdg"))
	env := []string{"XDG_CONFIG_HOME={base}/xdg/cfg", "XDG_DATA_HOME={base}/xdg/share"}
	script := `
ok gh_hosts 'grep -q oauth_token "$XDG_CONFIG_HOME/gh/hosts.yml"'
ok keyring 'grep -q . "$XDG_DATA_HOME/keyrings/login.keyring"'
val git_name 'git config --global user.name'
`
	r := f.exec(call{env: env, argv: []string{"/bin/sh", "-c", prelude + f.expand(script)}})
	f.expect(r, want{"gh_hosts": "yes", "keyring": "yes", "git_name": "tester"})

	inv, _ := f.compile("", call{env: env})
	r = f.bwrun(inv, script, call{env: env})
	f.expect(r, want{"gh_hosts": "no", "keyring": "no", "git_name": "tester"})

	inv, _ = f.compile("", call{})
	r = f.bwrun(inv, "echo ran", call{env: env})
	f.wantCode(r, 125)
	f.wantStderr(r, "$XDG_CONFIG_HOME names", "$XDG_DATA_HOME names", "recompile")
	if strings.Contains(r.stdout, "ran") {
		t.Errorf("the command ran: %v", r)
	}
}
